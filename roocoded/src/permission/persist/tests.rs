//! Tests of "allow always": the rule for a call, and the text edit of the local config.

use std::path::Path;

use super::*;
use crate::config::Config;
use crate::permission::command::analyze;
use crate::permission::rules::{Bases, RuleKind, Rules, Subject};

fn allow_list(text: &str) -> Vec<String> {
    let config = Config::parse(Path::new("config.local.yaml"), text).unwrap();
    config.permissions.allow
}

fn add(text: &str, rule: &str) -> String {
    with_allow_rule(text, rule).unwrap().expect("rule added")
}

#[test]
fn rule_for_each_kind_of_target() {
    let root = Path::new("/p/proj");
    let cmd = |c: &str| PermissionTarget::Command(c.into());
    let write = |p: &str| PermissionTarget::Path {
        path: p.into(),
        write: true,
    };
    let read = |p: &str| PermissionTarget::Path {
        path: p.into(),
        write: false,
    };
    assert_eq!(
        rule_for("Bash", &cmd("cargo test -p x"), root),
        "Bash(cargo test -p x)"
    );
    assert_eq!(rule_for("Bash", &cmd("ls *.rs"), root), "Bash(ls \\*.rs)");
    assert_eq!(
        rule_for("Bash", &cmd("grep a\\|b x"), root),
        "Bash(grep a\\\\|b x)"
    );
    assert_eq!(
        rule_for("Edit", &write("/p/proj/src/a.rs"), root),
        "Edit(src/a.rs)"
    );
    assert_eq!(
        rule_for("Write", &write("src/new.rs"), root),
        "Edit(src/new.rs)"
    );
    assert_eq!(
        rule_for("Write", &write("/p/proj/README.md"), root),
        "Edit(/README.md)"
    );
    assert_eq!(
        rule_for("Read", &read("/p/proj/docs/x.md"), root),
        "Read(docs/x.md)"
    );
    assert_eq!(rule_for("Grep", &read("/p/proj/src"), root), "Read(/src)");
    assert_eq!(
        rule_for("Edit", &write("/etc/x[1].conf"), root),
        "Edit(//etc/x\\[1\\].conf)"
    );
    assert_eq!(
        rule_for(
            "WebFetch",
            &PermissionTarget::Url("https://Docs.Rs/x?y".into()),
            root
        ),
        "WebFetch(domain:docs.rs)"
    );
    // Hosts are written canonically, so the rule reads as the address it matches.
    for (url, rule) in [
        ("http://2130706433:8080/?k=1", "WebFetch(domain:127.0.0.1)"),
        ("http://[::1]:3000/", "WebFetch(domain:[::1])"),
        ("http://[::ffff:10.0.0.1]/", "WebFetch(domain:10.0.0.1)"),
        ("http://LOCALHOST./x", "WebFetch(domain:localhost)"),
    ] {
        assert_eq!(
            rule_for("WebFetch", &PermissionTarget::Url(url.into()), root),
            rule,
            "{url}"
        );
        let (_, errors) = crate::permission::Rules::parse(&[rule.to_string()], &[], &[]);
        assert!(errors.is_empty(), "{rule}: {errors:?}");
    }
    assert_eq!(
        rule_for("TodoWrite", &PermissionTarget::None, root),
        "TodoWrite"
    );
}

#[test]
fn new_file_gets_a_permissions_block() {
    let dir = tempfile::tempdir().unwrap();
    append_allow_rule(dir.path(), "Bash(cargo test)").unwrap();
    let text = std::fs::read_to_string(dir.path().join(LOCAL_CONFIG)).unwrap();
    assert_eq!(text, "permissions:\n  allow:\n    - \"Bash(cargo test)\"\n");
    let ignore = std::fs::read_to_string(dir.path().join(".roocode/.gitignore")).unwrap();
    assert_eq!(ignore, "config.local.yaml\n");
    // Twice is once.
    append_allow_rule(dir.path(), "Bash(cargo test)").unwrap();
    append_allow_rule(dir.path(), "Edit(src/a.rs)").unwrap();
    let text = std::fs::read_to_string(dir.path().join(LOCAL_CONFIG)).unwrap();
    assert_eq!(allow_list(&text), ["Bash(cargo test)", "Edit(src/a.rs)"]);
}

#[test]
fn file_without_permissions_keeps_comments_and_keys() {
    let text = "# my local settings\nmodel: openai/gpt-4.1  # cheap\nmax_turns: 20\n";
    let out = add(text, "Bash(make)");
    assert!(out.starts_with(text), "{out}");
    assert!(out.contains("# cheap"));
    assert_eq!(allow_list(&out), ["Bash(make)"]);
    let config = Config::parse(Path::new("x"), &out).unwrap();
    assert_eq!(config.max_turns, Some(20));
}

#[test]
fn permissions_without_allow_gets_the_key() {
    let text = "permissions:\n    mode: plan   # for now\n    deny: [\"Bash(curl *)\"]\n# trailing comment\nmax_turns: 3\n";
    let out = add(text, "Read(src/**)");
    assert_eq!(
        out,
        "permissions:\n    mode: plan   # for now\n    deny: [\"Bash(curl *)\"]\n    allow:\n      - \"Read(src/**)\"\n# trailing comment\nmax_turns: 3\n"
    );
    let empty = add("permissions:\nmodel: x\n", "Bash(ls)");
    assert_eq!(
        empty,
        "permissions:\n  allow:\n    - \"Bash(ls)\"\nmodel: x\n"
    );
    let null = add("permissions: ~\n", "Bash(ls)");
    assert_eq!(allow_list(&null), ["Bash(ls)"]);
}

#[test]
fn block_list_keeps_its_indentation() {
    let text = "\
# local overrides
permissions:
  allow:
      - Bash(git diff:*)   # reviewed
      # a comment between items
      - 'Read(src/**)'
  # about deny
  deny:
    - Bash(rm:*)
model: x
";
    let out = add(text, "Bash(cargo build)");
    assert!(
        out.contains("      - 'Read(src/**)'\n      - \"Bash(cargo build)\"\n  # about deny\n"),
        "{out}"
    );
    assert!(out.contains("# reviewed") && out.contains("# a comment between items"));
    assert_eq!(
        allow_list(&out),
        ["Bash(git diff:*)", "Read(src/**)", "Bash(cargo build)"]
    );
    // Items at the key's own indentation are valid YAML too.
    let flush = "permissions:\n  allow:\n  - Bash(ls)\n  ask: []\n";
    let out = add(flush, "Bash(pwd)");
    assert_eq!(
        out,
        "permissions:\n  allow:\n  - Bash(ls)\n  - \"Bash(pwd)\"\n  ask: []\n"
    );
    // An empty `allow:` gets its first item.
    let out = add("permissions:\n  allow:\n  mode: plan\n", "Bash(pwd)");
    assert_eq!(allow_list(&out), ["Bash(pwd)"]);
}

#[test]
fn flow_lists_are_appended_in_place() {
    let out = add(
        "permissions:\n  allow: [\"Bash(ls)\", Read(src/**)]  # two\n",
        "Bash(pwd)",
    );
    assert_eq!(
        out,
        "permissions:\n  allow: [\"Bash(ls)\", Read(src/**), \"Bash(pwd)\"]  # two\n"
    );
    let out = add("permissions:\n  allow: []\n", "Bash(pwd)");
    assert_eq!(out, "permissions:\n  allow: [\"Bash(pwd)\"]\n");
    let multi = "permissions:\n  allow: [\n    \"Bash(ls)\",  # first\n    \"Bash(x])\"\n  ]\n";
    let out = add(multi, "Bash(pwd)");
    assert_eq!(allow_list(&out), ["Bash(ls)", "Bash(x])", "Bash(pwd)"]);
    assert!(out.contains("# first"));
    let trailing = add("permissions: {}\n", "Bash(a)");
    assert_eq!(allow_list(&trailing), ["Bash(a)"]);
}

#[test]
fn duplicates_are_not_added_and_broken_files_are_refused() {
    let text = "permissions:\n  allow:\n    - Bash(make)\n";
    assert!(with_allow_rule(text, "Bash(make)").unwrap().is_none());
    assert!(with_allow_rule("permissions: [oops\n", "Bash(make)").is_err());
    assert!(with_allow_rule("permissions: {allow: [a]}\n", "Bash(make)").is_err());
    assert!(with_allow_rule("- a list\n", "Bash(make)").is_err());
}

#[test]
fn awkward_rules_are_quoted_and_round_trip() {
    for rule in [
        "Bash(echo \"hi\" # not a comment)",
        "Bash(printf 'a\\tb\\n')",
        "Bash(cat <<EOF\nline: x\nEOF)",
        "Bash(- x: [y])",
        "Edit(src/ä ü.rs)",
    ] {
        let out = add("permissions:\n  allow:\n    - Bash(ls)\n", rule);
        assert_eq!(allow_list(&out), ["Bash(ls)", rule], "{out}");
    }
}

#[test]
fn persisted_rules_match_the_call_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let commands = [
        "cargo test && cargo clippy -- -D warnings",
        "ls *.rs",
        "echo a\\*b",
    ];
    for command in commands {
        let rule = rule_for("Bash", &PermissionTarget::Command(command.into()), root);
        append_allow_rule(root, &rule).unwrap();
    }
    let edit = rule_for(
        "Write",
        &PermissionTarget::Path {
            path: root.join("src/main.rs"),
            write: true,
        },
        root,
    );
    append_allow_rule(root, &edit).unwrap();
    let text = std::fs::read_to_string(root.join(LOCAL_CONFIG)).unwrap();
    let (rules, errors) = Rules::parse(&allow_list(&text), &[], &[]);
    assert!(errors.is_empty(), "{errors:?}");
    let bases = Bases {
        root,
        real_root: None,
        home: None,
        real_home: None,
    };
    let verdict = |line: &str| {
        let analysis = analyze(line);
        rules
            .evaluate(
                "Bash",
                &Subject::Command {
                    line,
                    analysis: &analysis,
                },
                &bases,
            )
            .map(|v| v.kind)
    };
    for command in commands {
        assert_eq!(verdict(command), Some(RuleKind::Allow), "{command}");
    }
    // Exact means exact: the escaped star is not a wildcard.
    assert_eq!(verdict("ls secret.txt"), None);
    assert_eq!(verdict("cargo test"), None);
    let path = root.join("src/main.rs");
    let subject = Subject::Path {
        path: &path,
        real: None,
        is_dir: false,
    };
    assert_eq!(
        rules.evaluate("Edit", &subject, &bases).map(|v| v.kind),
        Some(RuleKind::Allow)
    );
    let other = root.join("src/lib.rs");
    let subject = Subject::Path {
        path: &other,
        real: None,
        is_dir: false,
    };
    assert_eq!(rules.evaluate("Edit", &subject, &bases), None);
}

#[test]
fn a_rule_allowed_always_tells_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let file = root.join(LOCAL_CONFIG);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "# mine\npermissions:\n  allow:\n    - Read\n").unwrap();
    let origin = append_allow_rule_at(root, "Bash(make)").unwrap();
    assert_eq!(origin, RuleOrigin::new(file, 5));
    // Already there: the line it has.
    assert_eq!(append_allow_rule_at(root, "Read").unwrap().line, 4);
    // Read back, the configuration says the same.
    let config = Config::load(&root.join("no-user-dir"), root).unwrap();
    assert_eq!(
        config.permissions.origin(RuleKind::Allow, "Bash(make)"),
        Some(&origin)
    );
}
