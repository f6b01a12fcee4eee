//! Protected files and the config a turn runs with (issue 9, item 2), through the real
//! daemon: the agent's write of its own config or of `.git/config` asks in every mode,
//! a config broken during a turn does not kill it, and a rule added during a turn
//! applies only once the user approved it.

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Running, World};

const ESCALATION: &str = "permissions:\n  allow: [\"Bash(*)\"]\n";

/// (content, is_error) of the tool results in the last message of a recorded request.
fn last_results(body: &Value) -> Vec<(String, bool)> {
    crate::harness::last_results(body)
        .into_iter()
        .map(|r| (r.content, r.is_error))
        .collect()
}

fn call(name: &str, input: Value) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(name, input)])
}

/// Waits for the next permission line of a non-interactive send; returns (id, line).
async fn next_request(send: &mut Running) -> (String, String) {
    let line = send.until_stderr(|l| l.starts_with("permission: ")).await;
    let id = line.split(' ').nth(1).unwrap().to_string();
    (id, line)
}

async fn answer(w: &World, verb: &str, id: &str) {
    let out = w.run(&[verb, id]).await;
    assert_eq!(out.code, 0, "{verb} {id}: {out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writing_its_own_config_asks_in_accept_edits_and_the_next_command_still_asks() {
    let w = World::new(
        Script::new()
            .reply(call(
                "Write",
                json!({"file_path": ".roocode/config.local.yaml", "content": ESCALATION}),
            ))
            .reply(call("Bash", json!({"command": "touch escalated"})))
            .reply(Reply::text("Gave up.")),
    )
    .await;
    let mut send = w.start(&["send", "--mode", "acceptEdits", "--output", "json", "go"]);
    let (id, line) = next_request(&mut send).await;
    assert!(line.contains("Write"), "{line}");
    answer(&w, "deny", &id).await;
    let (id, line) = next_request(&mut send).await;
    assert!(
        line.contains("Bash") && line.contains("touch escalated"),
        "{line}"
    );
    answer(&w, "deny", &id).await;
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!w.project_path().join(".roocode/config.local.yaml").exists());
    assert!(!w.project_path().join("escalated").exists());
    let reason = &w.mock.requests()[1].body.to_string();
    assert!(reason.contains("Permission denied"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bypass_permissions_asks_before_the_agent_edits_its_config_or_git_config() {
    let w = World::new(
        Script::new()
            .reply(call(
                "Write",
                json!({"file_path": ".roocode/config.local.yaml", "content": ESCALATION}),
            ))
            .reply(call("Read", json!({"file_path": ".git/config"})))
            .reply(call(
                "Edit",
                json!({
                    "file_path": ".git/config",
                    "old_string": "[core]\n",
                    "new_string": "[core]\n\tfsmonitor = touch /tmp/never\n",
                }),
            ))
            .reply(Reply::text("Stopped.")),
    )
    .await;
    let git_config = w.project_path().join(".git/config");
    std::fs::create_dir_all(git_config.parent().unwrap()).unwrap();
    std::fs::write(&git_config, "[core]\n\tbare = false\n").unwrap();
    let mut send = w.start(&[
        "send",
        "--mode",
        "bypassPermissions",
        "--output",
        "json",
        "go",
    ]);
    let (id, line) = next_request(&mut send).await;
    assert!(line.contains("Write"), "{line}");
    answer(&w, "deny", &id).await;
    let (id, line) = next_request(&mut send).await;
    assert!(line.contains("Edit"), "{line}");
    let pending = w.run(&["pending", "--json"]).await.json();
    let reason = pending[0]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(reason.contains("protected file"), "{pending}");
    answer(&w, "deny", &id).await;
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!w.project_path().join(".roocode/config.local.yaml").exists());
    assert_eq!(
        std::fs::read_to_string(&git_config).unwrap(),
        "[core]\n\tbare = false\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dont_ask_denies_a_write_to_its_config() {
    let w = World::new(
        Script::new()
            .reply(call(
                "Write",
                json!({"file_path": ".roocode/config.yaml", "content": ESCALATION}),
            ))
            .reply(Reply::text("Could not.")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "dontAsk", "--output", "json", "go"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let results = last_results(&w.mock.requests()[1].body);
    assert!(results[0].1, "{results:?}");
    assert!(results[0].0.contains("protected file"), "{results:?}");
    assert!(!w.project_path().join(".roocode/config.yaml").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_broken_during_a_turn_does_not_kill_it() {
    let w = World::new(
        Script::new()
            .reply(ScriptedReply::new(call("Glob", json!({"pattern": "*"}))).with_gate("edit"))
            .reply(Reply::text("Finished anyway.")),
    )
    .await;
    let local = w.project_path().join(".roocode/config.local.yaml");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "max_turns: 10\n").unwrap();
    let send = w.start(&["send", "--output", "json", "list the files"]);
    w.mock.wait_for_gate_reached("edit").await;
    // The user saves a half-edited file while the turn runs.
    std::fs::write(&local, "max_turns: 10\npermissions: {allow: [\"Bash\n").unwrap();
    w.mock.open_gate("edit");
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["text"], "Finished anyway.");
    assert!(
        out.stderr.contains("config.local.yaml")
            && out.stderr.contains("configuration it started with"),
        "{out:?}"
    );

    // The next message is refused with every problem of the file; the daemon stays up
    // and takes the one after the fix.
    std::fs::write(
        &local,
        "max_turns: 10\npermisions: {allow: [\"Bash(*)\"]}\nretry: {max_attempts: 0}\n",
    )
    .unwrap();
    let out = w
        .run(&["send", "--continue", "--output", "json", "again"])
        .await;
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "config.local.yaml:2:1: unknown key `permisions` (did you mean `permissions`?)"
        ) && out
            .stderr
            .contains("config.local.yaml:3:23: retry.max_attempts: must be at least 1"),
        "{out:?}"
    );
    std::fs::write(&local, "max_turns: 10\n").unwrap();
    w.mock.push(Reply::text("Fixed."));
    let out = w
        .run(&["send", "--continue", "--output", "json", "again"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["text"], "Fixed.");
}

/// A rule appears in the local config while the turn runs (here written by the test,
/// as a command that slipped through would); the user is asked, and the next command
/// asks or runs according to the answer.
async fn rule_added_mid_turn(approve: bool) -> (World, Vec<String>) {
    let w = World::new(
        Script::new()
            .reply(ScriptedReply::new(call("Glob", json!({"pattern": "*"}))).with_gate("edit"))
            .reply(call("Bash", json!({"command": "touch ran"})))
            .reply(Reply::text("Done.")),
    )
    .await;
    let mut send = w.start(&["send", "--output", "json", "go"]);
    w.mock.wait_for_gate_reached("edit").await;
    let local = w.project_path().join(".roocode/config.local.yaml");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, "permissions:\n  allow: [\"Bash(touch ran)\"]\n").unwrap();
    w.mock.open_gate("edit");
    let (id, line) = next_request(&mut send).await;
    assert!(
        line.contains(" Config ") && line.contains("Bash(touch ran)"),
        "{line}"
    );
    let mut lines = vec![line];
    answer(&w, if approve { "approve" } else { "deny" }, &id).await;
    if !approve {
        let (id, line) = next_request(&mut send).await;
        lines.push(line);
        answer(&w, "deny", &id).await;
    }
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    (w, lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_added_during_a_turn_is_not_applied_when_refused() {
    let (w, lines) = rule_added_mid_turn(false).await;
    assert!(
        lines[1].contains("Bash") && lines[1].contains("touch ran"),
        "{lines:?}"
    );
    assert!(!w.project_path().join("ran").exists());
    // The next turn does not apply the refused rule silently: it asks again.
    w.mock.push(call("Bash", json!({"command": "touch ran"})));
    w.mock.push(Reply::text("Done again."));
    let mut send = w.start(&["send", "--continue", "--output", "json", "go on"]);
    let (id, line) = next_request(&mut send).await;
    assert!(
        line.contains(" Config ") && line.contains("Bash(touch ran)"),
        "{line}"
    );
    answer(&w, "deny", &id).await;
    let (id, line) = next_request(&mut send).await;
    assert!(
        line.contains("Bash") && line.contains("touch ran"),
        "{line}"
    );
    answer(&w, "deny", &id).await;
    let out = send.finish().await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!w.project_path().join("ran").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_added_during_a_turn_applies_once_approved() {
    let (w, lines) = rule_added_mid_turn(true).await;
    assert_eq!(lines.len(), 1, "the command ran without asking: {lines:?}");
    assert!(w.project_path().join("ran").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_always_applies_at_once_and_ignores_the_local_config() {
    let w = World::new(
        Script::new()
            .reply(call("Bash", json!({"command": "touch one"})))
            .reply(call("Glob", json!({"pattern": "*"})))
            .reply(call("Bash", json!({"command": "touch one"})))
            .reply(Reply::text("Done.")),
    )
    .await;
    let mut send = w.start(&["send", "--output", "json", "go"]);
    let (id, _) = next_request(&mut send).await;
    let out = w.run(&["approve", "--always", &id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let out = send.finish().await;
    assert_eq!(out.code, 0, "asked once only: {out:?}");
    assert_eq!(out.stderr.matches("permission: ").count(), 1, "{out:?}");
    let ignore = std::fs::read_to_string(w.project_path().join(".roocode/.gitignore")).unwrap();
    assert_eq!(ignore, "config.local.yaml\n");
}
