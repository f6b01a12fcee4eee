//! `roocode-cli agents --definitions`: the agent types a user of Claude Code already has
//! (`~/.claude/agents/*.md`, resolved from the client's HOME) load unchanged next to the
//! project's, each with what will not apply (Claude Code keys, tools RooCode does not
//! have), and a broken file is reported with its file and line without stopping the
//! others.

use roocode_tests::mock_llm::{Reply, Script};

use crate::harness::World;

const REVIEWER: &str = "---\n\
name: code-reviewer\n\
description: コードレビューの専門家。変更の後に使う。\n\
tools: Read, Grep, Glob\n\
model: sonnet\n\
color: blue\n\
---\n\
You are a senior code reviewer.\n";

/// A Claude Code definition naming tools Claude Code has and RooCode has not.
const NOTEBOOK: &str = "---\n\
name: notebook-helper\n\
description: Edits Jupyter notebooks\n\
tools: Read, Task, NotebookEdit, mcp__jupyter__run_cell\n\
---\n\
You edit notebooks.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_definitions_load_and_broken_ones_are_reported() {
    let w = World::new(Script::always(Reply::text("unused"))).await;
    let user_agents = w.home.path().join(".claude/agents");
    std::fs::create_dir_all(&user_agents).unwrap();
    std::fs::write(user_agents.join("code-reviewer.md"), REVIEWER).unwrap();
    std::fs::write(user_agents.join("notebook-helper.md"), NOTEBOOK).unwrap();
    let project_agents = w.project_path().join(".roocode/agents");
    std::fs::create_dir_all(&project_agents).unwrap();
    std::fs::write(
        project_agents.join("broken.md"),
        "---\ndescription: has no name\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(
        project_agents.join("tester.md"),
        "---\nname: tester\ndescription: Runs the tests\nbackground: true\n---\nRun them.\n",
    )
    .unwrap();

    let out = w.run(&["agents", "--definitions"]).await;
    assert_eq!(out.code, 1, "a file did not load: {out:?}");
    let text = &out.stdout;
    let reviewer = text
        .lines()
        .find(|l| l.starts_with("code-reviewer "))
        .unwrap_or_else(|| panic!("no code-reviewer line: {text}"));
    assert_eq!(
        reviewer.split_whitespace().collect::<Vec<_>>(),
        [
            "code-reviewer",
            "user",
            "(.claude)",
            "コードレビューの専門家。変更の後に使う。"
        ],
        "{text}"
    );
    assert!(
        text.contains("not applied by RooCode (Claude Code settings): color"),
        "the key not applied is named: {text}"
    );
    assert!(
        text.contains("tool `Task` does not exist in RooCode; dropped (closest in RooCode: Agent)"),
        "a tool of Claude Code's is named, with RooCode's: {text}"
    );
    assert!(
        text.contains("tool `NotebookEdit` does not exist in RooCode; dropped"),
        "{text}"
    );
    assert!(!text.contains("`Read` does not exist"), "{text}");
    assert!(!text.contains("mcp__jupyter__run_cell` does not"), "{text}");
    assert!(text.contains("tester"), "{text}");
    assert!(text.contains("broken.md:"), "{text}");
    assert!(text.contains("no `name`"), "{text}");

    let json = w.run(&["agents", "--definitions", "--json"]).await;
    let answer: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let names: Vec<&str> = answer["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["code-reviewer", "notebook-helper", "tester"]);
    assert_eq!(
        answer["definitions"][0]["tools"],
        serde_json::json!(["Read", "Grep", "Glob"])
    );
    assert_eq!(answer["definitions"][0]["model"], "sonnet");
    assert_eq!(
        answer["definitions"][0]["warnings"],
        serde_json::json!(["not applied by RooCode (Claude Code settings): color"]),
        "the reviewer's tools all exist"
    );
    let notebook = &answer["definitions"][1];
    assert_eq!(
        notebook["warnings"],
        serde_json::json!([
            "tool `Task` does not exist in RooCode; dropped (closest in RooCode: Agent)",
            "tool `NotebookEdit` does not exist in RooCode; dropped",
        ]),
        "{notebook}"
    );
    assert_eq!(answer["definitions"][2]["background"], true);
    assert_eq!(answer["problems"].as_array().unwrap().len(), 1, "{answer}");
    assert!(answer["problems"][0]["line"].is_u64(), "{answer}");

    // Bare `agents` lists the running sub-agents (none here), not the definitions.
    let bare = w.run(&["agents"]).await;
    assert_eq!(bare.code, 0, "{bare:?}");
    assert!(bare.stderr.contains("no sub-agents"), "{bare:?}");
}
