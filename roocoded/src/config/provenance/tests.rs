//! Tests of rule provenance: each rule's file and line, read from real files and kept
//! through the merge; origins never make two configurations differ.

use std::path::Path;

use super::*;
use crate::config::{Config, Guarded};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn origin(path: &Path, line: u32) -> RuleOrigin {
    RuleOrigin::new(path, line)
}

#[test]
fn rules_of_two_files_keep_their_file_and_line() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let user_file = user.path().join("config.yaml");
    let project_file = project.path().join(".roocode/config.yaml");
    let local_file = project.path().join(".roocode/config.local.yaml");
    write(
        &user_file,
        "model: a/b\n\
         # the rules\n\
         permissions:\n\
         \x20 mode: default\n\
         \x20 allow:\n\
         \x20   - \"Read(src/**)\"   # sources\n\
         \x20   - Bash(git diff:*)\n\
         \x20 deny: [\"Bash(curl *)\"]\n",
    );
    write(
        &project_file,
        "permissions:\n\
         \x20 ask: ['Bash(git push:*)']\n\
         \x20 allow: [\"Bash(npm run *)\",\n\
         \x20         \"Read(src/**)\",\n\
         \x20   'WebFetch(domain:docs.rs)']\n",
    );
    write(
        &local_file,
        "permissions:\n  allow:\n\n    # allowed always\n    - \"Bash(make)\"\n",
    );
    let config = Config::load(user.path(), project.path()).unwrap();
    let p = &config.permissions;
    assert_eq!(
        p.allow,
        [
            "Read(src/**)",
            "Bash(git diff:*)",
            "Bash(npm run *)",
            "WebFetch(domain:docs.rs)",
            "Bash(make)"
        ]
    );
    let at = |kind, rule| p.origin(kind, rule).cloned();
    assert_eq!(
        at(RuleKind::Allow, "Read(src/**)"),
        Some(origin(&user_file, 6))
    );
    assert_eq!(
        at(RuleKind::Allow, "Bash(git diff:*)"),
        Some(origin(&user_file, 7))
    );
    assert_eq!(
        at(RuleKind::Deny, "Bash(curl *)"),
        Some(origin(&user_file, 8))
    );
    assert_eq!(
        at(RuleKind::Ask, "Bash(git push:*)"),
        Some(origin(&project_file, 2))
    );
    assert_eq!(
        at(RuleKind::Allow, "Bash(npm run *)"),
        Some(origin(&project_file, 3))
    );
    assert_eq!(
        at(RuleKind::Allow, "WebFetch(domain:docs.rs)"),
        Some(origin(&project_file, 5))
    );
    assert_eq!(
        at(RuleKind::Allow, "Bash(make)"),
        Some(origin(&local_file, 5))
    );
    // A rule both files write: the first is the one the merged list keeps.
    assert_eq!(
        p.origins.all(RuleKind::Allow, "Read(src/**)"),
        [origin(&user_file, 6), origin(&project_file, 4)]
    );
    // The same text in another list is another rule.
    assert_eq!(at(RuleKind::Deny, "Read(src/**)"), None);
    // The gate's rules carry them.
    let (rules, errors) = crate::permission::Rules::from_config(p);
    assert!(errors.is_empty());
    let found: Vec<(RuleKind, String, Option<u32>)> = rules
        .iter()
        .map(|(kind, r)| (kind, r.text().to_string(), r.origin().map(|o| o.line)))
        .collect();
    assert_eq!(
        found[..3],
        [
            (RuleKind::Deny, "Bash(curl *)".to_string(), Some(8)),
            (RuleKind::Ask, "Bash(git push:*)".to_string(), Some(2)),
            (RuleKind::Allow, "Read(src/**)".to_string(), Some(6)),
        ]
    );
}

#[test]
fn a_flow_mapping_and_duplicates_in_one_file() {
    let file = Path::new("/p/.roocode/config.yaml");
    let text = "permissions: {allow: [Read, Read], deny: [\n  Bash]}\n";
    let config = Config::parse(file, text).unwrap();
    let origins = &config.permissions.origins;
    assert_eq!(origins.all(RuleKind::Allow, "Read"), [origin(file, 1)]);
    assert_eq!(origins.of(RuleKind::Deny, "Bash"), Some(&origin(file, 2)));
    assert_eq!(rule_line(text, RuleKind::Deny, "Bash"), Some(2));
    assert_eq!(rule_line(text, RuleKind::Ask, "Bash"), None);
    assert_eq!(rule_line("permissions: [", RuleKind::Deny, "Bash"), None);
}

#[test]
fn where_a_rule_is_written_is_not_a_change() {
    let a = Config::parse(Path::new("a.yaml"), "permissions:\n  allow: [Read]\n").unwrap();
    let b = Config::parse(
        Path::new("b.yaml"),
        "# moved down\n\npermissions:\n  allow:\n    - Read\n",
    )
    .unwrap();
    assert_ne!(
        a.permissions.origin(RuleKind::Allow, "Read"),
        b.permissions.origin(RuleKind::Allow, "Read")
    );
    assert_eq!(a.permissions, b.permissions);
    assert_eq!(Guarded::of(&a), Guarded::of(&b));
    assert!(Guarded::of(&a).changes(&Guarded::of(&b)).is_empty());
}

#[test]
fn a_rule_added_later_keeps_the_origin_it_is_given() {
    let mut p = PermissionsConfig::default();
    p.add_allow_rule("Bash(make)", Some(origin(Path::new("/p/l.yaml"), 3)));
    p.add_allow_rule("Bash(make)", None);
    p.add_allow_rule("Read", None);
    assert_eq!(p.allow, ["Bash(make)", "Read"]);
    assert_eq!(
        p.origin(RuleKind::Allow, "Bash(make)")
            .map(ToString::to_string),
        Some("/p/l.yaml:3".to_string())
    );
    assert_eq!(p.origin(RuleKind::Allow, "Read"), None);
}
