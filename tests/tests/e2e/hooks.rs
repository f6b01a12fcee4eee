//! Hooks through the real binaries: a blocking `pre_tool_use` hook stops a Bash call
//! (its reason is the call's result, the command never runs); a formatter's
//! `post_tool_use` complaint reaches the next request; Claude Code's
//! `.claude/settings.json` hooks run — the user's at once, the project's once approved
//! (`roocode-cli hooks approve`); a `stop` hook sends the agent back to work exactly up
//! to `continuation.max_per_message`, the last time marked FINAL; every event gives
//! its hook Claude Code's JSON on stdin.

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::{Value, json};

use crate::harness::World;

/// The user's own config (`ROOCODE_HOME/config.yaml`): its hooks need no approval.
fn user_config(w: &World, yaml: &str) {
    std::fs::write(w.home.path().join("config.yaml"), yaml).expect("write config");
}

fn script(w: &World, name: &str, body: &str) -> String {
    let path = w.home.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write hook");
    path.display().to_string()
}

/// The text of the tool results of a request.
fn results(body: &Value) -> String {
    body["messages"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_pre_tool_use_hook_stops_a_bash_call() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "rm -f keep.txt"}),
            ))
            .reply(Reply::text("I could not delete it.")),
    )
    .await;
    std::fs::write(w.project_path().join("keep.txt"), "keep").unwrap();
    let guard = script(&w, "guard.sh", "echo \"no rm in this project\" >&2\nexit 2");
    user_config(
        &w,
        &format!(
            "hooks:\n  - event: pre_tool_use\n    matcher: Bash\n    if: 'command =~ \"rm \"'\n    action: {{type: command, command: \"sh {guard}\"}}\n"
        ),
    );
    let out = w.run(&["send", "delete keep.txt"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        w.project_path().join("keep.txt").exists(),
        "the hook blocked rm"
    );
    let sent = results(&w.mock.requests()[1].body);
    assert!(
        sent.contains("Blocked by a hook: no rm in this project"),
        "{sent}"
    );

    let list = w.run(&["hooks", "list"]).await;
    assert_eq!(list.code, 0, "{list:?}");
    assert!(list.stdout.contains("pre_tool_use [Bash]"), "{list:?}");
    assert!(list.stdout.contains("(user, runs)"), "{list:?}");
    assert!(list.stdout.contains("last run: deny"), "{list:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_formatter_complaint_after_write_reaches_the_next_request() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Write",
                json!({"file_path": "src/main.rs", "content": "fn main(){}"}),
            ))
            .reply(Reply::text("Formatted.")),
    )
    .await;
    let fmt = script(
        &w,
        "fmt.sh",
        "echo \"$FILE_PATH is not formatted: run rustfmt\" >&2\nexit 2",
    );
    user_config(
        &w,
        &format!(
            "hooks:\n  - event: post_tool_use\n    if: 'tool == \"Write\" && file_path =~ \"\\\\.rs$\"'\n    action: {{type: command, command: \"sh {fmt}\"}}\n"
        ),
    );
    let out = w
        .run(&["send", "--mode", "acceptEdits", "write main"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(w.project_path().join("src/main.rs").exists());
    let sent = results(&w.mock.requests()[1].body);
    assert!(
        sent.contains("A post_tool_use hook reported a problem with your Write call"),
        "{sent}"
    );
    assert!(
        sent.contains("main.rs is not formatted: run rustfmt"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_settings_hooks_block_and_project_ones_wait_for_approval() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Bash", json!({"command": "echo hi"})))
            .reply(Reply::text("Ran it."))
            .reply(Reply::tool_call("Bash", json!({"command": "echo hi"})))
            .reply(Reply::text("Blocked.")),
    )
    .await;
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "project policy: no echo"}});
    let hook = script(&w, "policy.sh", &format!("echo '{deny}'"));
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": format!("sh {hook}")}]}]}});
    std::fs::create_dir_all(w.project_path().join(".claude")).unwrap();
    std::fs::write(
        w.project_path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();

    // Not approved yet: the call runs, and the user is told why the hook did not.
    // bypassPermissions: the hook decides before the mode would (and cannot be skipped).
    let first = w
        .run(&["send", "--mode", "bypassPermissions", "say hi"])
        .await;
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        first.stderr.contains("roocode-cli hooks approve"),
        "{first:?}"
    );
    assert!(!results(&w.mock.requests()[1].body).contains("no echo"));

    let approve = w.run(&["hooks", "approve"]).await;
    assert_eq!(approve.code, 0, "{approve:?}");
    assert!(approve.stdout.contains("Approved"), "{approve:?}");
    let second = w.run(&["send", "--continue", "say hi again"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let sent = results(&w.mock.requests()[3].body);
    assert!(sent.contains("project policy: no echo"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_hook_continues_exactly_up_to_the_cap() {
    let w = World::new(Script::new().fallback(Reply::text("Done, I think."))).await;
    let block = script(
        &w,
        "more.sh",
        "echo '{\"decision\": \"block\", \"reason\": \"the checklist is not done\"}'",
    );
    user_config(
        &w,
        &format!(
            "continuation: {{max_per_message: 2, max_per_session: 3}}\nhooks:\n  - event: stop\n    action: {{type: command, command: \"sh {block}\"}}\n"
        ),
    );
    let out = w.run(&["send", "work through the list"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 3, "the answer and two continuations");
    let second = requests[1].body["messages"].to_string();
    assert!(second.contains("continuation 1 of at most 2"), "{second}");
    assert!(!second.contains("FINAL"), "{second}");
    let third = requests[2].body["messages"].to_string();
    assert!(third.contains("the checklist is not done"), "{third}");
    assert!(
        third.contains("FINAL: this is the last continuation"),
        "{third}"
    );

    // A genuine message resets the per-message count; the session's cap still holds.
    let again = w.run(&["send", "--continue", "and the rest"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(
        w.mock.request_count(),
        5,
        "one more continuation, then the cap"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_gives_its_hook_claude_code_s_payload() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Bash", json!({"command": "echo payload"})))
            .reply(Reply::text("Done.")),
    )
    .await;
    let log = w.home.path().join("events.jsonl");
    let record = script(
        &w,
        "record.sh",
        &format!("cat >> {}\necho >> {}", log.display(), log.display()),
    );
    let mut yaml = String::from("hooks:\n");
    for event in [
        "session_start",
        "user_prompt_submit",
        "pre_tool_use",
        "post_tool_use",
        "stop",
        "pre_compact",
        "session_end",
    ] {
        yaml.push_str(&format!(
            "  - event: {event}\n    action: {{type: command, command: \"sh {record}\"}}\n"
        ));
    }
    user_config(&w, &yaml);
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "run the payload"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    let gone = w.run(&["rm", &id]).await;
    assert_eq!(gone.code, 0, "{gone:?}");

    let text = std::fs::read_to_string(&log).expect("the hooks ran");
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("one JSON object per run"))
        .collect();
    let named = |name: &str| {
        events
            .iter()
            .find(|e| e["hook_event_name"] == name)
            .unwrap_or_else(|| panic!("{name} fired: {events:?}"))
            .clone()
    };
    for e in &events {
        assert_eq!(e["session_id"], id.as_str(), "{e}");
        assert!(e["cwd"].as_str().is_some(), "{e}");
        assert!(e.get("transcript_path").is_some(), "{e}");
    }
    assert_eq!(named("SessionStart")["source"], "startup");
    assert_eq!(named("UserPromptSubmit")["prompt"], "run the payload");
    let pre = named("PreToolUse");
    assert_eq!(pre["tool_name"], "Bash");
    assert_eq!(pre["tool_input"]["command"], "echo payload");
    let post = named("PostToolUse");
    assert!(
        post["tool_response"].to_string().contains("payload"),
        "{post}"
    );
    assert_eq!(named("Stop")["stop_hook_active"], false);
    assert_eq!(named("SessionEnd")["reason"], "delete");
}
