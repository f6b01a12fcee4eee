//! Tests of the definition loader: real Claude Code files, precedence, spellings, and
//! every invalid case reported with file and line while the valid files still load.

use std::fs;
use std::path::Path;

use roocode_protocol::Mode;

use super::*;
use crate::frontmatter::test_support::Dirs;

const REVIEWER: &str = "---
name: code-reviewer
description: 代码审查专家。在编写或修改代码后主动使用，检查质量、安全性和可维护性。
tools: Read, Grep, Glob, Read
model: sonnet
color: blue
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
";

fn dirs() -> Dirs<Source, Loaded> {
    Dirs::new(Source::dir, load)
}

fn agent(name: &str, prompt: &str) -> String {
    format!("---\nname: {name}\ndescription: d\n---\n{prompt}\n")
}

fn problem_for<'a>(loaded: &'a Loaded, file: &Path) -> &'a Problem {
    loaded
        .problems
        .iter()
        .find(|p| p.file == file)
        .unwrap_or_else(|| panic!("no problem for {}: {:?}", file.display(), loaded.problems))
}

#[test]
fn definitions_load_a_real_claude_code_reviewer() {
    let d = dirs();
    let path = d.write(Source::ProjectClaude, "code-reviewer.md", REVIEWER);
    let loaded = d.load();
    assert_eq!(loaded.problems, vec![]);
    let def = loaded.get("code-reviewer").unwrap();
    assert!(def.description.starts_with("代码审查专家"));
    assert_eq!(
        def.tools,
        Some(vec!["Read".into(), "Grep".into(), "Glob".into()])
    );
    assert_eq!(def.model, ModelChoice::Tier(ModelTier::Sonnet));
    assert_eq!(def.not_applied, vec!["color".to_string()]);
    assert!(def.unknown_keys.is_empty());
    assert!(def.prompt.starts_with("You are a senior code reviewer"));
    assert!(def.prompt.ends_with("recent changes"));
    assert_eq!(
        (def.path.as_path(), def.source),
        (path.as_path(), Source::ProjectClaude)
    );
    assert_eq!(def.permission_mode, None);
    assert_eq!(def.isolation, Isolation::None);
    assert!(!def.background);
    assert_eq!(def.warnings().len(), 1, "{:?}", def.warnings());
}

#[test]
fn definitions_precedence_across_the_four_dirs() {
    let d = dirs();
    let mut paths = Vec::new();
    for (i, source) in Source::ALL.into_iter().enumerate() {
        paths.push(d.write(source, "a.md", agent("shared", &format!("from {i}"))));
    }
    d.write(Source::UserClaude, "only.md", agent("user-only", "u"));
    d.write(
        Source::UserRooCode,
        "b.md",
        agent("user-pair", "claude loses"),
    );
    d.write(
        Source::ProjectClaude,
        "b.md",
        agent("user-pair", "project wins"),
    );
    let loaded = d.load();
    assert_eq!(loaded.problems, vec![]);
    assert_eq!(loaded.names(), vec!["shared", "user-only", "user-pair"]);
    let shared = loaded.get("shared").unwrap();
    assert_eq!(shared.prompt, "from 3");
    assert_eq!(shared.source, Source::ProjectRooCode);
    assert_eq!(shared.path, paths[3]);
    assert_eq!(shared.overrides, paths[..3].to_vec());
    assert!(
        shared
            .warnings()
            .iter()
            .any(|w| w.starts_with("overrides "))
    );
    assert_eq!(loaded.get("user-pair").unwrap().prompt, "project wins");
    assert_eq!(loaded.get("user-only").unwrap().source, Source::UserClaude);
}

#[test]
fn definitions_home_that_is_the_project_reads_each_dir_once() {
    let d = dirs();
    let path = d.write(Source::UserRooCode, "a.md", agent("a", "p"));
    let loaded = load(&d.user, &d.home);
    assert_eq!(loaded.problems, vec![]);
    let def = loaded.get("a").unwrap();
    assert_eq!((def.path.clone(), def.overrides.len()), (path, 0));
}

#[test]
fn definitions_accept_camel_case_and_every_key() {
    let text = "---
name: worker
description: \"Works: hard\"
tools:
  - Bash(git add, git commit)
  - Edit
disallowedTools: WebFetch, Bash(git add, git commit) ,WebFetch
model: inherit
maxTurns: 12
permissionMode: bypassPermissions
isolation: worktree
background: true
timeout_s: 600
skills: [a]
mcpServers: {x: {}}
hooks: {}
effort: high
---
Do it.";
    let def = parse(text, Path::new("w.md"), Source::ProjectRooCode).unwrap();
    assert_eq!(def.description, "Works: hard");
    assert_eq!(
        def.tools,
        Some(vec!["Bash(git add, git commit)".into(), "Edit".into()])
    );
    assert_eq!(
        def.disallowed_tools,
        vec!["WebFetch".to_string(), "Bash(git add, git commit)".into()]
    );
    assert_eq!(def.model, ModelChoice::Inherit);
    assert_eq!(def.max_turns, Some(12));
    assert_eq!(def.permission_mode, Some(Mode::BypassPermissions));
    assert_eq!(def.isolation, Isolation::Worktree);
    assert!(def.background);
    assert_eq!(def.timeout_s, Some(600));
    assert_eq!(def.not_applied, vec!["skills", "mcpServers", "hooks"]);
    assert_eq!(def.unknown_keys, vec!["effort"]);
    assert_eq!(def.prompt, "Do it.");
    let snake = "---\nname: s\ndisallowed_tools: [Bash]\nmax_turns: 3\npermission_mode: plan\nmodel: anthropic/claude-opus-4-5\ntools: '*'\n---\n";
    let def = parse(snake, Path::new("s.md"), Source::UserRooCode).unwrap();
    assert_eq!(def.disallowed_tools, vec!["Bash".to_string()]);
    assert_eq!(
        (def.max_turns, def.permission_mode),
        (Some(3), Some(Mode::Plan))
    );
    assert_eq!(
        def.model,
        ModelChoice::Spec("anthropic/claude-opus-4-5".into())
    );
    assert_eq!(def.tools, None);
    assert!(def.warnings().iter().any(|w| w.contains("description")));
}

#[test]
fn definitions_crlf_and_bom() {
    let d = dirs();
    let text = format!("\u{feff}{}", REVIEWER.replace('\n', "\r\n"));
    d.write(Source::UserClaude, "r.md", text);
    let loaded = d.load();
    assert_eq!(loaded.problems, vec![]);
    let def = loaded.get("code-reviewer").unwrap();
    assert_eq!(def.tools.as_ref().unwrap().len(), 3);
    assert!(!def.prompt.contains('\r'));
    assert!(def.description.ends_with("可维护性。"));
}

#[test]
fn definitions_unquoted_colon_in_a_claude_description_loads_leniently() {
    let text = "---\nname: helper\ndescription: Use this agent when: the user asks.\\n\\nExamples: <example>Context: x</example>\nmodel: haiku\n---\nHelp.";
    let def = parse(text, Path::new("h.md"), Source::ProjectClaude).unwrap();
    assert!(def.lenient_yaml);
    assert!(
        def.description
            .starts_with("Use this agent when: the user asks.\n\nExamples: <ex")
    );
    assert_eq!(def.model, ModelChoice::Tier(ModelTier::Haiku));
    assert!(def.warnings().iter().any(|w| w.contains("quotes")));
}

#[test]
fn definitions_invalid_files_are_problems_with_lines_and_the_rest_load() {
    let d = dirs();
    let s = Source::ProjectRooCode;
    let good = d.write(s, "good.md", agent("good", "fine"));
    let no_name = d.write(s, "no-name.md", "---\ndescription: x\n---\nbody");
    let broken = d.write(
        s,
        "broken.md",
        "---\nname: b\ntools: [Read\ndescription: x\n---\n",
    );
    let no_front = d.write(s, "plain.md", "# Just markdown\n");
    let unclosed = d.write(s, "unclosed.md", "---\nname: u\n");
    let bad_mode = d.write(s, "mode.md", "---\nname: m\n\npermissionMode: yolo\n---\n");
    let bad_turns = d.write(s, "turns.md", "---\nname: t\nmax_turns: -3\n---\n");
    let bad_iso = d.write(s, "iso.md", "---\nname: i\nisolation: docker\n---\n");
    let list = d.write(s, "list.md", "---\n- a\n- b\n---\n");
    let two = d.write(
        s,
        "two.md",
        "---\nname: w\nmaxTurns: 1\nmax_turns: 2\n---\n",
    );
    let graph = d.write(
        s,
        "lead.md",
        "---\nname: lead\ncollaboration:\n  agents: [a, b]\n  flow: [\"a -> c\"]\n---\n",
    );
    let led = d.write(
        s,
        "led.md",
        "---\nname: led\ncollaboration:\n  topology: pipeline\n  agents: [a, b]\n---\nLead.\n",
    );
    let loaded = d.load();
    assert_eq!(loaded.names(), vec!["good", "led"]);
    let pipeline = loaded.get("led").unwrap().collaboration.as_ref().unwrap();
    assert_eq!(pipeline.agents, ["a", "b"]);
    assert_eq!(loaded.get("led").unwrap().path, led);
    assert_eq!(loaded.get("good").unwrap().path, good);
    let expect = [
        (&no_name, 2, "no `name`"),
        (&broken, 4, "broken YAML"),
        (&no_front, 1, "no frontmatter"),
        (&unclosed, 1, "never closed"),
        (
            &bad_mode,
            4,
            "`yolo` is not a permission mode: use one of default, acceptEdits",
        ),
        (
            &bad_turns,
            3,
            "`max_turns` must be a whole number above 0, not `-3`",
        ),
        (&bad_iso, 3, "`docker` is not an isolation"),
        (&list, 2, "not a list"),
        (&two, 4, "both `maxTurns` and `max_turns`"),
        (&graph, 3, "`c` is not in agents"),
    ];
    for (file, line, text) in expect {
        let p = problem_for(&loaded, file);
        assert_eq!(p.line, Some(line), "{p}");
        assert!(p.message.contains(text), "{p}");
    }
    assert_eq!(loaded.problems.len(), expect.len(), "{:?}", loaded.problems);
    let shown = problem_for(&loaded, &bad_mode).to_string();
    assert!(
        shown.starts_with(&format!("{}:4: ", bad_mode.display())),
        "{shown}"
    );
}

#[test]
fn definitions_unreadable_and_odd_files() {
    let d = dirs();
    let s = Source::UserRooCode;
    d.write(s, "ok.md", agent("ok", "p"));
    d.write(s, "notes.txt", "not a definition");
    d.write(s, "README", agent("readme", "p"));
    fs::create_dir_all(s.dir(&d.user, &d.project).join("folder.md")).unwrap();
    let latin1 = d.write(s, "latin1.md", b"---\nname: l\ndescription: caf\xe9\n---\n");
    let target = d.write(Source::UserClaude, "real.md", agent("linked", "via link"));
    let dir = s.dir(&d.user, &d.project);
    std::os::unix::fs::symlink(&target, dir.join("link.md")).unwrap();
    let dangling = dir.join("dangling.md");
    std::os::unix::fs::symlink(dir.join("missing"), &dangling).unwrap();
    let loaded = d.load();
    assert_eq!(loaded.names(), vec!["linked", "ok"]);
    assert_eq!(loaded.get("linked").unwrap().path, dir.join("link.md"));
    let p = problem_for(&loaded, &latin1);
    assert_eq!(
        (p.line, p.message.contains("UTF-8")),
        (Some(3), true),
        "{p}"
    );
    assert!(problem_for(&loaded, &dangling).message.contains("symlink"));
    assert_eq!(loaded.problems.len(), 2, "{:?}", loaded.problems);
}

#[test]
fn definitions_unreadable_file_is_a_problem() {
    use std::os::unix::fs::PermissionsExt;
    let d = dirs();
    let path = d.write(Source::ProjectClaude, "secret.md", agent("secret", "p"));
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&path).is_ok() {
        return; // running as root: permissions do not stop reads
    }
    let loaded = d.load();
    assert!(loaded.definitions.is_empty());
    assert!(problem_for(&loaded, &path).message.contains("cannot read"));
}

#[test]
fn definitions_same_name_in_one_folder_keeps_the_first() {
    let d = dirs();
    d.write(Source::UserRooCode, "a.md", agent("twin", "first"));
    let second = d.write(Source::UserRooCode, "b.md", agent("twin", "second"));
    let loaded = d.load();
    assert_eq!(loaded.get("twin").unwrap().prompt, "first");
    assert!(
        problem_for(&loaded, &second)
            .message
            .contains("already used")
    );
}

#[test]
fn definitions_duplicate_key_empty_file_and_rules_in_the_body() {
    let p = Path::new("x.md");
    let dup = parse(
        "---\nname: a\ndescription: d\nname: b\n---\n",
        p,
        Source::UserRooCode,
    );
    let dup = dup.unwrap_err();
    assert!(dup.message.contains("broken YAML"), "{dup}");
    assert!(dup.line.is_some_and(|l| (2..=4).contains(&l)), "{dup}");
    let empty = parse("", p, Source::UserRooCode).unwrap_err();
    assert_eq!(empty.line, Some(1));
    let bare = parse("---\n---\n", p, Source::UserRooCode).unwrap_err();
    assert!(bare.message.contains("no `name`"), "{bare}");
    let ruled = parse(
        "---\nname: r\n---\nIntro\n\n---\n\nMore",
        p,
        Source::UserRooCode,
    );
    assert_eq!(ruled.unwrap().prompt, "Intro\n\n---\n\nMore");
}
