//! A skill's own tools (`tool.json`) through the real binaries: offered to the model
//! once the skill is loaded and until the turn ends, run as an argument vector with the
//! arguments also on standard input, in the session's sandbox, and checked as the
//! commands they are (a `Bash(rm:*)` deny rule stops one).

use std::os::unix::fs::PermissionsExt as _;

use roocode_tests::mock_llm::{Reply, RouteMatch, Script};
use serde_json::{Value, json};

use crate::harness::World;
use crate::skills::{tool_names, write};

/// A folder skill `stamp` whose tool runs `command` (JSON) with a `path` parameter.
fn stamp_skill(w: &World, command: &str) {
    write(
        w,
        ".roocode/skills/stamp/SKILL.md",
        "---\nname: stamp\ndescription: Stamp files\n---\nSTAMP-BODY: call the stamp tool.\n",
    );
    write(
        w,
        ".roocode/skills/stamp/tool.json",
        &format!(
            r#"{{"tools": [{{"name": "stamp", "description": "Stamp one file",
                "input_schema": {{"type": "object", "properties": {{"path": {{"type": "string"}},
                "note": {{"type": "string"}}}}, "required": ["path"]}},
                "command": {command}, "timeout_s": 30}}]}}"#
        ),
    );
}

fn user_config(w: &World, yaml: &str) {
    std::fs::write(w.home.path().join("config.yaml"), yaml).expect("write config");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_tool_is_offered_while_its_skill_runs_and_gets_its_input_on_stdin() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Skill", json!({"name": "stamp"})))
            .reply(Reply::tool_call(
                "skill__stamp__stamp",
                json!({"path": "out file.txt", "note": "a; b"}),
            ))
            .reply(Reply::text("Stamped."))
            .reply(Reply::text("Second turn.")),
    )
    .await;
    stamp_skill(&w, r#"["scripts/stamp.sh", "{{path}}"]"#);
    let script = w
        .project_path()
        .join(".roocode/skills/stamp/scripts/stamp.sh");
    write(
        &w,
        ".roocode/skills/stamp/scripts/stamp.sh",
        "#!/bin/sh\ncat > \"$ROOCODE_PROJECT_DIR/$1\"\necho \"stamped [$1] from $ROOCODE_SKILL_DIR\"\n",
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    user_config(&w, "permissions:\n  allow: [Bash]\n");

    let out = w.run(&["send", "stamp it"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert!(
        !tool_names(&requests[0].body).contains(&"skill__stamp__stamp".to_string()),
        "not offered before the skill runs"
    );
    assert!(
        tool_names(&requests[1].body).contains(&"skill__stamp__stamp".to_string()),
        "offered once it runs: {:?}",
        tool_names(&requests[1].body)
    );
    let result = requests[2].body["messages"].to_string();
    assert!(
        result.contains("stamped [out file.txt] from ") && result.contains("skills/stamp"),
        "one argument, with spaces, and the skill's folder: {result}"
    );
    let stdin = std::fs::read_to_string(w.project_path().join("out file.txt")).expect("stamped");
    let stdin: Value = serde_json::from_str(&stdin).expect("JSON on stdin");
    assert_eq!(stdin, json!({"path": "out file.txt", "note": "a; b"}));

    let second = w.run(&["send", "--continue", "and now?"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let next = tool_names(&w.mock.requests()[3].body);
    assert!(
        !next.contains(&"skill__stamp__stamp".to_string()),
        "gone when the turn ended: {next:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_tool_is_checked_as_the_command_it_runs() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Skill", json!({"name": "stamp"})))
            .reply(Reply::tool_call(
                "skill__stamp__stamp",
                json!({"path": "keep.txt"}),
            ))
            .reply(Reply::text("Could not.")),
    )
    .await;
    stamp_skill(&w, r#"["rm", "-f", "{{path}}"]"#);
    write(&w, "keep.txt", "precious");
    user_config(
        &w,
        "permissions:\n  allow: [Bash]\n  deny: [\"Bash(rm:*)\"]\n",
    );

    let out = w.run(&["send", "stamp it"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let result = w.mock.requests()[2].body["messages"].to_string();
    assert!(result.contains("denied"), "{result}");
    assert_eq!(
        std::fs::read_to_string(w.project_path().join("keep.txt")).expect("kept"),
        "precious"
    );
}

/// A Claude Code fork skill with `allowed-tools: Bash(touch:*)`, whose fork touches
/// `forked.txt`; the parent's model runs it with the `Skill` tool.
async fn fork_world() -> World {
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("AUDIT-BODY".into()),
            [
                Reply::tool_call("Bash", json!({"command": "touch forked.txt"})),
                Reply::text("fork done"),
            ],
        )
        .reply(Reply::tool_call("Skill", json!({"name": "audit"})))
        .reply(Reply::text("Reported."));
    let w = World::new(script).await;
    write(
        &w,
        ".claude/skills/audit/SKILL.md",
        "---\nname: audit\ndescription: Audit the code\ncontext: fork\nallowed-tools: Bash(touch:*)\n---\nAUDIT-BODY: touch forked.txt.\n",
    );
    w
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_skill_the_user_runs_gets_its_pre_approved_rules_and_one_the_model_loads_does_not() {
    let w = fork_world().await;
    let out = w.run(&["send", "--mode", "dontAsk", "/audit"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        w.project_path().join("forked.txt").exists(),
        "the user ran it: `Bash(touch:*)` is pre-approved in the fork"
    );

    let w = fork_world().await;
    let out = w.run(&["send", "--mode", "dontAsk", "run the audit"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        !w.project_path().join("forked.txt").exists(),
        "a project skill the model loads by itself grants nothing"
    );
}
