//! Skills through the real binaries: the model is told their names and descriptions in
//! a system reminder (never the system prompt), loads one with the `Skill` tool, whose
//! `allowed_tools` narrow its tools until the turn ends; a skill added mid-session is
//! listed at the next turn; `|name|` at the start of a message activates one (the
//! syntax never reaches the model); a fork skill runs in a sub-agent that sees none of
//! the parent's conversation; `/name` runs one as a command.

use roocode_tests::mock_llm::{Reply, RouteMatch, Script};
use serde_json::{Value, json};

use crate::harness::World;

/// Writes `text` to `rel` in the world's project, creating its folders.
pub(crate) fn write(w: &World, rel: &str, text: &str) {
    let path = w.project_path().join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

/// The tool names a request sent.
pub(crate) fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

const LINT: &str = "---\nname: lint\ndescription: Lint the code base\nwhen_to_use: before a commit\nallowed_tools: [Read, Grep]\n---\nLINT-BODY: lint $ARGUMENTS with care.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_skill_tool_loads_a_body_and_narrows_the_tools_for_the_turn() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Skill",
                json!({"name": "lint", "arguments": "src"}),
            ))
            .reply(Reply::text("Linted."))
            .reply(Reply::text("Second turn.")),
    )
    .await;
    write(&w, ".roocode/skills/lint/SKILL.md", LINT);

    let first = w.run(&["send", "please lint"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let requests = w.mock.requests();
    let listing = requests[0].body["messages"].to_string();
    assert!(
        listing.contains("- lint: Lint the code base — When to use: before a commit"),
        "{listing}"
    );
    assert!(
        !requests[0].body["system"]
            .to_string()
            .contains("Lint the code base"),
        "the listing is never in the system prompt"
    );
    let before = tool_names(&requests[0].body);
    assert!(before.contains(&"Bash".to_string()), "{before:?}");
    assert!(before.contains(&"Skill".to_string()), "{before:?}");
    let during = tool_names(&requests[1].body);
    assert_eq!(during, ["Read", "Grep", "Skill"], "narrowed while it runs");
    assert!(
        requests[1].body["messages"]
            .to_string()
            .contains("LINT-BODY: lint src with care."),
        "the body comes back with its arguments"
    );

    // A skill added mid-session is listed at the next turn; the tools are restored.
    write(
        &w,
        ".roocode/skills/fmt.md",
        "---\ndescription: Format the code\n---\nFMT-BODY\n",
    );
    let second = w.run(&["send", "--continue", "and now?"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let requests = w.mock.requests();
    let after = tool_names(&requests[2].body);
    assert_eq!(after, before, "the next turn has every tool again");
    let latest = requests[2].body["messages"].as_array().expect("messages");
    let last = latest.last().expect("a message").to_string();
    assert!(last.contains("- fmt: Format the code"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activation_injects_skills_and_strips_the_syntax() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("Done."))
            .reply(Reply::text("A table.")),
    )
    .await;
    write(&w, ".roocode/skills/lint/SKILL.md", LINT);
    write(
        &w,
        ".roocode/skills/style.md",
        "---\ndescription: House style\npriority: 10\n---\nSTYLE-BODY\n",
    );

    let typo = w.run(&["send", "|lnit| check it"]).await;
    assert_ne!(typo.code, 0, "{typo:?}");
    assert!(typo.stderr.contains("lint"), "{typo:?}");
    assert_eq!(w.mock.request_count(), 0);

    let ok = w.run(&["send", "|lint:src|style| check it"]).await;
    assert_eq!(ok.code, 0, "{ok:?}");
    let sent = w.mock.requests()[0].body["messages"].to_string();
    assert!(!sent.contains("|lint"), "the syntax is removed: {sent}");
    assert!(sent.contains("check it"), "{sent}");
    let style = sent.find("STYLE-BODY").expect("style injected");
    let lint = sent.find("LINT-BODY: lint src").expect("lint injected");
    assert!(style < lint, "lower priority first: {sent}");

    // A Markdown table row is not an activation: it goes as written.
    let table = w.run(&["send", "--continue", "|Name|Age|\n|Ann|7|"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let sent = w.mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("|Name|Age|"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_skill_runs_isolated_and_returns_only_its_result() {
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("AUDIT-BODY".into()),
            [
                Reply::tool_call("Glob", json!({"pattern": "*.rs"})),
                Reply::text("fork-result: all clean"),
            ],
        )
        .reply(Reply::tool_call("Skill", json!({"name": "audit"})))
        .reply(Reply::text("The audit says all clean."));
    let w = World::new(script).await;
    write(
        &w,
        ".roocode/skills/audit.md",
        "---\ndescription: Audit the code\nmode: fork\n---\nAUDIT-BODY: audit everything.\n",
    );

    let out = w.run(&["send", "parent-secret-1234: run the audit"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let fork = requests
        .iter()
        .map(|r| &r.body)
        .filter(|b| b["messages"].to_string().contains("AUDIT-BODY"))
        .filter(|b| !b["messages"].to_string().contains("parent-secret-1234"))
        .count();
    assert_eq!(fork, 2, "the fork's two calls saw no parent history");
    let parent_last = requests.last().expect("requests").body["messages"].to_string();
    assert!(
        parent_last.contains("fork-result: all clean"),
        "{parent_last}"
    );
    assert!(
        !parent_last.contains("\"Glob\""),
        "the fork's tool calls stay out of the parent: {parent_last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_runs_as_a_slash_command_and_claude_skills_load() {
    let w = World::new(Script::new().reply(Reply::text("Committed."))).await;
    std::fs::create_dir_all(w.home.path().join(".claude/skills/notes")).expect("dir");
    std::fs::write(
        w.home.path().join(".claude/skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Take notes\nallowed-tools: Bash(git log:*)\n---\nNOTES-BODY $ARGUMENTS\n",
    )
    .expect("write");

    let out = w.run(&["send", "/notes today"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let sent = w.mock.requests()[0].body["messages"].to_string();
    assert!(sent.contains("NOTES-BODY today"), "{sent}");

    let skills = w.run(&["send", "--continue", "/skills"]).await;
    assert_eq!(skills.code, 0, "{skills:?}");
    for name in ["/notes", "/commit", "/review", "/test"] {
        assert!(skills.stdout.contains(name), "{name}: {skills:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_own_skills_live_in_roocode_home_and_claudes_in_the_home() {
    // The harness sets HOME and ROOCODE_HOME to the same folder: RooCode's user files
    // are at its top (as config.yaml is), Claude Code's under `.claude/`.
    let w = World::new(Script::new().reply(Reply::text("unused"))).await;
    for (rel, name) in [
        ("skills/mine.md", "mine"),
        (".claude/skills/theirs.md", "theirs"),
    ] {
        let path = w.home.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, format!("---\ndescription: {name} skill\n---\nBODY\n"))
            .expect("write");
    }
    let stray = w.home.path().join(".roocode/skills/stray.md");
    std::fs::create_dir_all(stray.parent().expect("parent")).expect("dir");
    std::fs::write(&stray, "---\ndescription: stray\n---\nBODY\n").expect("write");

    let out = w.run(&["send", "/skills"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("/mine"), "{out:?}");
    assert!(out.stdout.contains("/theirs"), "{out:?}");
    assert!(
        !out.stdout.contains("/stray"),
        "with ROOCODE_HOME set, ~/.roocode is not read: {out:?}"
    );
}
