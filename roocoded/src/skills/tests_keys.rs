//! Tests of what a skill file says: RooCode's keys, Claude Code's keys and their
//! meaning, warnings; then the listing and its digest, and the helpers of activation
//! (names, requirements, priority).

use super::*;

const PROJECT: SkillSource = SkillSource::Project { claude: false };
const PROJECT_CLAUDE: SkillSource = SkillSource::Project { claude: true };
const USER: SkillSource = SkillSource::User { claude: false };

fn parsed(text: &str) -> Skill {
    parse(text, "x", PROJECT, None).unwrap()
}

#[test]
fn claude_code_files_keep_claude_codes_meaning() {
    let text = "---
name: pdf-processing
description: Extract text and tables from PDF files. Use when working with PDFs: forms, extraction.
allowed-tools: Read Grep Bash(python scripts/extract.py:*)
argument-hint: [file] [pages]
disable-model-invocation: true
user-invocable: false
context: fork
model: haiku
license: Apache-2.0
version: 1.0.0
metadata:
  author: someone
hooks: {}
when-to-use: a PDF is mentioned
---
# PDF processing

Run `python scripts/extract.py`.
";
    let s = parse(text, "pdf", PROJECT_CLAUDE, None).unwrap();
    assert_eq!(s.name, "pdf-processing");
    assert_eq!(
        s.description,
        "Extract text and tables from PDF files. Use when working with PDFs: forms, extraction."
    );
    assert_eq!(
        s.pre_approved,
        ["Read", "Grep", "Bash(python scripts/extract.py:*)"]
    );
    assert_eq!(s.allowed_tools, None);
    assert_eq!(s.argument_hint.as_deref(), Some("[file] [pages]"));
    assert!(s.disable_model_invocation && !s.user_invocable && !s.model_invocable());
    assert_eq!(s.mode, SkillMode::Fork);
    assert_eq!(s.model.as_deref(), Some("haiku"));
    assert_eq!(s.when_to_use.as_deref(), Some("a PDF is mentioned"));
    assert_eq!(
        s.body,
        "# PDF processing\n\nRun `python scripts/extract.py`."
    );
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("not applied by RooCode") && s.warnings[0].contains("hooks"));
    assert!(s.warnings[1].contains("unquoted `: `"));
    let list_hint = parsed("---\nargument-hint: [issue-number]\n---\nx");
    assert_eq!(list_hint.argument_hint.as_deref(), Some("[issue-number]"));
}

#[test]
fn roocode_keys() {
    let s = parsed(
        "---
name: deploy
description: Deploy the service
when_to_use: after the tests pass
tags: [ops, release]
allowed_tools: Read, Bash
mode: fork
argument_hint: <env>
model: inherit
params:
  - name: env
    default: staging
    description: where to deploy
  - dry_run
  - {name: retries, default: 3}
requires: test, review
priority: -5
---
Deploy to $env.
",
    );
    assert_eq!(s.name, "deploy");
    assert_eq!(s.tags, ["ops", "release"]);
    assert_eq!(
        s.allowed_tools,
        Some(vec!["Read".to_string(), "Bash".to_string()])
    );
    assert_eq!(s.mode, SkillMode::Fork);
    assert_eq!(s.argument_hint.as_deref(), Some("<env>"));
    assert_eq!(s.model, None);
    let params: Vec<(&str, Option<&str>, Option<&str>)> = s
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.default.as_deref(),
                p.description.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("env", Some("staging"), Some("where to deploy")),
            ("dry_run", None, None),
            ("retries", Some("3"), None)
        ]
    );
    assert_eq!(s.requires, ["test", "review"]);
    assert_eq!(s.priority, -5);
    assert_eq!(s.warnings, Vec::<String>::new());

    let map = parsed(
        "---\ndescription: d\nparams:\n  target: HEAD\n  depth:\n  mode: {default: quick, description: how}\n---\nx",
    );
    let names: Vec<(&str, Option<&str>)> = map
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.default.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("target", Some("HEAD")),
            ("depth", None),
            ("mode", Some("quick"))
        ]
    );
    assert_eq!(map.priority, DEFAULT_PRIORITY);
    assert_eq!(map.mode, SkillMode::Inline);
    assert!(map.user_invocable && !map.disable_model_invocation);

    let every = parsed("---\ndescription: d\nallowed_tools: '*'\n---\nx");
    assert_eq!(every.allowed_tools, None);
    let none = parsed("---\ndescription: d\nallowed_tools: []\n---\nx");
    assert_eq!(none.allowed_tools, Some(vec![]));
    let same = parsed("---\ndescription: d\nmode: fork\ncontext: fork\n---\nx");
    assert_eq!(same.mode, SkillMode::Fork);
}

#[test]
fn a_file_without_frontmatter_is_all_body() {
    let s = parse(
        "\u{feff}# Explain the code\r\n\r\nExplain $ARGUMENTS simply.\r\n",
        "explain",
        USER,
        None,
    )
    .unwrap();
    assert_eq!(s.name, "explain");
    assert_eq!(s.description, "Explain the code");
    assert_eq!(s.body, "# Explain the code\n\nExplain $ARGUMENTS simply.");
    assert!(s.warnings[0].starts_with("no `description`"));
}

#[test]
fn warnings_name_unknown_keys_with_the_closest_spelling() {
    let s = parsed("---\ndescription: d\nwhen_to_us: x\nfrobnicate: 1\nlicense: MIT\n---\n");
    assert_eq!(
        s.warnings,
        [
            "unknown key `when_to_us`, ignored (did you mean `when_to_use`?)",
            "unknown key `frobnicate`, ignored",
            "the body is empty: the skill gives the model nothing to do",
        ]
    );
}

#[test]
fn the_listing_shows_model_invocable_skills_one_line_each() {
    let mut set = SkillSet::default();
    assert_eq!(set.listing(), "");
    let mut a = parsed(
        "---\nname: alpha\ndescription: \"First\\nsecond line\"\nwhen_to_use: |\n  when\n  asked\n---\nbody",
    );
    let b = parsed("---\nname: beta\ndescription: Beta\n---\nbody");
    let hidden =
        parsed("---\nname: hidden\ndescription: Hidden\ndisable-model-invocation: true\n---\nbody");
    set.skills = vec![a.clone(), b.clone(), hidden];
    let listing = set.listing();
    let lines: Vec<&str> = listing
        .lines()
        .skip_while(|l| !l.starts_with("- "))
        .collect();
    assert_eq!(
        lines,
        [
            "- alpha: First second line — When to use: when asked",
            "- beta: Beta"
        ]
    );
    assert!(
        listing.contains("`Skill` tool")
            && listing.contains("`name`")
            && listing.contains("`arguments`")
    );
    let digest = set.digest();
    assert_eq!(digest.len(), 16);
    let again = SkillSet {
        skills: set.skills.clone(),
        ..SkillSet::default()
    };
    assert_eq!(
        (again.listing(), again.digest()),
        (listing.clone(), digest.clone())
    );
    set.skills[0].body = "changed body".into();
    set.skills[2].description = "hidden changes nothing".into();
    assert_eq!(set.digest(), digest);
    a.description = "First".into();
    set.skills[0] = a;
    assert_ne!(set.digest(), digest);
    assert_ne!(set.listing(), listing);
    set.skills = vec![b];
    assert_ne!(set.digest(), digest);
}

#[test]
fn resolving_requirements_and_priority() {
    let set = SkillSet {
        skills: vec![
            parsed(
                "---\nname: deploy\ndescription: d\nrequires: [test, review]\npriority: 90\n---\nx",
            ),
            parsed("---\nname: review\ndescription: d\n---\nx"),
            parsed("---\nname: secret\ndescription: d\nuser-invocable: false\n---\nx"),
            parsed("---\nname: test\ndescription: d\npriority: 10\n---\nx"),
            parsed("---\nname: alpha\ndescription: d\npriority: 90\n---\nx"),
        ],
        ..SkillSet::default()
    };
    let acts = activation::parse("|deploy|test| go").unwrap().activations;
    let resolved = resolve(&set, &acts).unwrap();
    let active: Vec<&Skill> = resolved.iter().map(|(s, _)| *s).collect();
    let unmet = unmet_requires(&active);
    assert_eq!(unmet.len(), 1);
    assert_eq!(
        (unmet[0].0.name.as_str(), unmet[0].1.clone()),
        ("deploy", vec!["review"])
    );
    assert_eq!(
        unmet_reminder(&unmet).unwrap(),
        "Not activated: `deploy` requires `review`, which are not active; activate them together, e.g. |review|deploy|."
    );
    assert_eq!(unmet_reminder(&[]), None);
    let all: Vec<&Skill> = set.skills.iter().collect();
    assert!(unmet_requires(&all).is_empty());
    let order: Vec<&str> = by_priority(all.iter().copied().chain([all[1]]))
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(order, ["test", "review", "secret", "alpha", "deploy"]);

    let typo = activation::parse("|reveiw|").unwrap().activations;
    let error = resolve(&set, &typo).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown skill `reveiw`: did you mean `review`?"
    );
    let far = activation::parse("|zzz|").unwrap().activations;
    assert_eq!(
        resolve(&set, &far).unwrap_err().to_string(),
        "unknown skill `zzz`"
    );
    let secret = activation::parse("|secret|").unwrap().activations;
    assert_eq!(
        resolve(&set, &secret).unwrap_err(),
        UnknownSkill::ModelOnly("secret".into())
    );
    let near = activation::parse("|sec|").unwrap().activations;
    assert_eq!(
        resolve(&set, &near).unwrap_err().to_string(),
        "unknown skill `sec`"
    );
}

#[test]
fn name_rules() {
    for ok in ["a", "commit", "plan-v2", "x9"] {
        assert!(valid_name(ok), "{ok}");
    }
    for bad in ["", "A", "1x", "-x", "a_b", "a b", "é", &"a".repeat(65)] {
        assert!(!valid_name(bad), "{bad}");
    }
    assert_eq!(error::suggest_name("My Skill"), "my-skill");
    assert_eq!(error::suggest_name("2 Fast__2 Furious!"), "fast-2-furious");
    assert_eq!(error::suggest_name("!!"), "my-skill");
}
