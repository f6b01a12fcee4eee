//! Tests of the skill loader: the built-ins, precedence and shadowing, folder skills
//! with their tools and references, and every invalid case reported with file and line
//! while the others still load.

use std::fs;
use std::path::Path;

use super::*;
use crate::frontmatter::test_support::Dirs;

fn dirs() -> Dirs<SkillSource, SkillSet> {
    Dirs::new(|s, home, project| s.dir(home, project).unwrap(), load)
}

const PROJECT: SkillSource = SkillSource::Project { claude: false };
const PROJECT_CLAUDE: SkillSource = SkillSource::Project { claude: true };
const USER: SkillSource = SkillSource::User { claude: false };
const USER_CLAUDE: SkillSource = SkillSource::User { claude: true };

fn skill(description: &str, body: &str) -> String {
    format!("---\ndescription: {description}\n---\n{body}\n")
}

#[test]
fn the_built_ins_load_cleanly_as_designed() {
    let d = dirs();
    let set = d.load();
    assert_eq!(set.problems, []);
    assert_eq!(
        set.names(),
        ["commit", "execute", "loop", "plan", "review", "test"]
    );
    for s in &set.skills {
        assert_eq!(s.source, SkillSource::BuiltIn);
        assert_eq!(s.warnings, Vec::<String>::new(), "{}", s.name);
        assert!(
            s.description.len() > 40 && s.when_to_use.is_some(),
            "{}",
            s.name
        );
        assert!(s.user_invocable);
        // The loop and the workflow functions are the user's to start.
        let model = !matches!(s.name.as_str(), "loop" | "plan" | "execute");
        assert_eq!(s.model_invocable(), model, "{}", s.name);
        assert_eq!(s.path, None);
    }
    let commit = set.get("commit").unwrap();
    assert_eq!(commit.mode, SkillMode::Inline);
    for needle in [
        "git status",
        "git diff --cached",
        "git add -- path",
        "git add -A",
        "git add .",
        "git commit -a",
        "type(scope): subject",
        "10 files",
        "secrets",
        "--amend",
        "git push",
    ] {
        assert!(commit.body.contains(needle), "commit lacks {needle}");
    }
    let review = set.get("review").unwrap();
    assert_eq!(review.mode, SkillMode::Fork);
    assert_eq!(
        review.allowed_tools.as_deref(),
        Some(&["Read", "Grep", "Glob", "Bash"].map(String::from)[..])
    );
    assert!(
        review
            .pre_approved
            .contains(&"Bash(git diff:*)".to_string())
    );
    assert_eq!(review.params[0].name, "target");
    assert_eq!(review.params[0].default.as_deref(), Some("HEAD"));
    for needle in [
        "Logic",
        "Security",
        "Performance",
        "Style",
        "Maintainability",
        "## Critical",
        "## Warning",
        "## Info",
        "## Positive notes",
        "file:line",
    ] {
        assert!(review.body.contains(needle), "review lacks {needle}");
    }
    let rendered = substitute(
        &review.body,
        &review.params,
        &Arguments::parse("main...HEAD"),
    );
    assert!(
        rendered.contains("Target: `main...HEAD`. Focus: `all`"),
        "{rendered}"
    );
    let test = set.get("test").unwrap();
    assert_eq!(test.mode, SkillMode::Inline);
    for needle in [
        "Cargo.toml",
        "go.mod",
        "pytest",
        "package.json",
        "code bug",
        "test bug",
        "before you edit",
        "gaps",
    ] {
        assert!(test.body.contains(needle), "test lacks {needle}");
    }
    assert!(substitute(&test.body, &test.params, &Arguments::default()).contains("Scope: `all`"));
}

#[test]
fn the_highest_source_wins_and_the_losers_name_it() {
    let d = dirs();
    let p = d.write(PROJECT, "deploy.md", skill("p", "project"));
    let pc = d.write(
        PROJECT_CLAUDE,
        "deploy/SKILL.md",
        skill("pc", "project claude"),
    );
    let u = d.write(USER, "deploy.md", skill("u", "user"));
    let uc = d.write(USER_CLAUDE, "deploy/SKILL.md", skill("uc", "user claude"));
    let c = d.write(USER_CLAUDE, "commit/SKILL.md", skill("my commit", "mine"));
    d.write(USER_CLAUDE, "only-claude/SKILL.md", skill("oc", "x"));
    let set = d.load();
    assert_eq!(set.problems, []);
    assert_eq!(
        set.names(),
        [
            "commit",
            "deploy",
            "execute",
            "loop",
            "only-claude",
            "plan",
            "review",
            "test"
        ]
    );
    let deploy = set.get("deploy").unwrap();
    assert_eq!((deploy.source, deploy.body.as_str()), (PROJECT, "project"));
    assert_eq!(deploy.path.as_deref(), Some(p.as_path()));
    assert_eq!(deploy.dir, None);
    let commit = set.get("commit").unwrap();
    assert_eq!(
        (commit.source, commit.path.as_deref()),
        (USER_CLAUDE, Some(c.as_path()))
    );
    assert_eq!(commit.dir.as_deref(), c.parent());
    let lost: Vec<(&str, SkillSource, Option<&Path>, SkillSource)> = set
        .shadowed
        .iter()
        .map(|s| (s.name.as_str(), s.source, s.path.as_deref(), s.by))
        .collect();
    assert_eq!(
        lost,
        [
            ("deploy", PROJECT_CLAUDE, Some(pc.as_path()), PROJECT),
            ("deploy", USER, Some(u.as_path()), PROJECT),
            ("deploy", USER_CLAUDE, Some(uc.as_path()), PROJECT),
            ("commit", SkillSource::BuiltIn, None, USER_CLAUDE),
        ]
    );
    assert_eq!(set.shadowed[0].by_path.as_deref(), Some(p.as_path()));
}

#[test]
fn a_home_that_is_the_project_is_read_once() {
    let d = dirs();
    d.write(USER, "mine.md", skill("m", "x"));
    let set = load(&d.user, &d.home);
    assert_eq!(set.get("mine").unwrap().source, PROJECT);
    assert_eq!(set.shadowed, []);
}

#[test]
fn a_folder_skill_has_its_tools_and_references() {
    let d = dirs();
    let file = d.write(
        PROJECT,
        "lint/SKILL.md",
        skill("Lint files", "Use the lint tool."),
    );
    let dir = file.parent().unwrap();
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(dir.join("references/rules.md"), "rules").unwrap();
    let tools = r#"{"tools": [{"name": "eslint", "description": "Lint a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "command": ["eslint", "{{path}}"], "timeout_s": 30}]}"#;
    fs::write(dir.join("tool.json"), tools).unwrap();
    d.write(PROJECT, "plain/SKILL.md", skill("No extras", "x"));
    d.write(PROJECT, "shared/notes.txt", "not a skill");
    let set = d.load();
    assert_eq!(set.problems, []);
    let lint = set.get("lint").unwrap();
    assert_eq!(lint.dir.as_deref(), Some(dir));
    assert_eq!(lint.references, Some(dir.join("references")));
    assert_eq!(lint.tools.len(), 1);
    assert_eq!(
        lint.tools[0]
            .argv(&serde_json::json!({"path": "a b.js"}))
            .unwrap(),
        ["eslint", "a b.js"]
    );
    let plain = set.get("plain").unwrap();
    assert_eq!((plain.references.as_ref(), plain.tools.len()), (None, 0));
    assert!(set.get("shared").is_none());
}

#[test]
fn a_broken_tool_file_is_a_problem_but_the_skill_loads() {
    let d = dirs();
    let file = d.write(PROJECT, "lint/SKILL.md", skill("Lint", "x"));
    let tools = file.parent().unwrap().join("tool.json");
    fs::write(&tools, r#"{"tools": [{"name": "x", "description": "d", "input_schema": {}, "command": ["a", "{{nope}}"]}]}"#).unwrap();
    let set = d.load();
    assert_eq!(set.problems.len(), 1);
    assert_eq!(set.problems[0].file, tools);
    assert!(
        set.problems[0].message.contains("`{{nope}}`"),
        "{}",
        set.problems[0]
    );
    let lint = set.get("lint").unwrap();
    assert!(lint.tools.is_empty());
    assert!(
        lint.warnings[0].starts_with("its tools are not loaded"),
        "{:?}",
        lint.warnings
    );
}

#[test]
fn every_invalid_file_is_a_problem_with_its_line_and_the_rest_loads() {
    let d = dirs();
    let cases: Vec<(&str, &str, Option<usize>, &str)> = vec![
        (
            "bad-name.md",
            "---\ndescription: d\nname: Bad_Name\n---\nx",
            Some(3),
            "`name: Bad_Name` is not a skill name",
        ),
        (
            "My Skill.md",
            "---\ndescription: d\n---\nx",
            Some(2),
            "rename it to `my-skill`",
        ),
        (
            "Upper/SKILL.md",
            "---\ndescription: d\n---\nx",
            Some(2),
            "the folder name `Upper`",
        ),
        (
            "yaml.md",
            "---\ndescription: d\ntags: [a\n---\nx",
            Some(4),
            "broken YAML",
        ),
        (
            "unclosed.md",
            "---\ndescription: d\n",
            Some(1),
            "never closed",
        ),
        ("list.md", "---\n- a\n---\nx", Some(2), "not a list"),
        (
            "priority.md",
            "---\ndescription: d\npriority: high\n---\nx",
            Some(3),
            "`priority` must be a whole number",
        ),
        (
            "bool.md",
            "---\ndescription: d\nuser-invocable: maybe\n---\nx",
            Some(3),
            "must be true or false",
        ),
        (
            "mode.md",
            "---\ndescription: d\nmode: parallel\n---\nx",
            Some(3),
            "must be `inline` or `fork`",
        ),
        (
            "conflict.md",
            "---\ndescription: d\nmode: inline\ncontext: fork\n---\nx",
            Some(4),
            "disagree",
        ),
        (
            "twice.md",
            "---\ndescription: d\nwhen_to_use: a\nwhen-to-use: b\n---\nx",
            Some(4),
            "two spellings",
        ),
        (
            "param.md",
            "---\ndescription: d\nparams: [my-param]\n---\nx",
            Some(3),
            "parameter `my-param`",
        ),
        (
            "param2.md",
            "---\ndescription: d\nparams: [a, a]\n---\nx",
            Some(3),
            "twice",
        ),
        (
            "param3.md",
            "---\ndescription: d\nparams:\n  - {name: a, required: true}\n---\nx",
            Some(3),
            "not `required`",
        ),
        (
            "param4.md",
            "---\ndescription: d\nparams: [ARGUMENTS]\n---\nx",
            Some(3),
            "not `ARGUMENTS`",
        ),
        (
            "requires.md",
            "---\ndescription: d\nrequires: [Test]\n---\nx",
            Some(3),
            "`Test`, which is not a skill name",
        ),
        (
            "tags.md",
            "---\ndescription: d\ntags: {a: 1}\n---\nx",
            Some(3),
            "`tags` must be a list",
        ),
    ];
    let mut expected = Vec::new();
    for (file, text, line, message) in &cases {
        let path = d.write(PROJECT, file, text);
        expected.push((path, *line, *message));
    }
    let utf8 = d.write(PROJECT, "utf8.md", b"---\ndescription: d\n---\nok\n\xff");
    expected.push((utf8, Some(5), "not UTF-8"));
    let dup = d.write(PROJECT, "dup.md", skill("second", "x"));
    d.write(PROJECT, "dup/SKILL.md", skill("first", "x"));
    expected.push((dup, None, "already defined by"));
    let case = d.write(PROJECT, "cased/skill.md", skill("d", "x"));
    expected.push((
        case.with_file_name("SKILL.md"),
        None,
        "rename `skill.md` to `SKILL.md`",
    ));
    d.write(PROJECT, "good.md", skill("fine", "x"));
    d.write(PROJECT, "README.md", "# About these skills");
    let set = d.load();
    assert_eq!(
        set.names(),
        [
            "commit", "dup", "execute", "good", "loop", "plan", "review", "test"
        ]
    );
    assert_eq!(set.get("dup").unwrap().description, "first");
    assert_eq!(set.problems.len(), expected.len(), "{:#?}", set.problems);
    for (path, line, message) in expected {
        let problem = set
            .problems
            .iter()
            .find(|p| p.file == path)
            .unwrap_or_else(|| panic!("no problem for {}", path.display()));
        assert_eq!(problem.line, line, "{problem}");
        assert!(problem.message.contains(message), "{problem}");
    }
}
