//! Secrets guarded by default (issue 9, item 4), through the real daemon: a `Read` of
//! `.env` asks in default, acceptEdits and plan, is denied in dontAsk and runs in
//! bypassPermissions; a credential printed by a command is redacted in what the model
//! receives, in the spilled result file and in everything RooCode stores; Grep leaves
//! `.env` out with a note. The canaries are fake keys in a temporary project under a
//! temporary `HOME`.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::json;

use crate::harness::World;

/// A fake AWS access key id, assembled so this file does not hold one.
fn aws_canary() -> String {
    concat!("AKIA", "Q7RZ3MNB4VKD2XPW").to_string()
}

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_containing(&p, needle));
        } else if std::fs::read(&p)
            .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
        {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_dot_env_asks_in_every_mode_but_bypass() {
    let read = || Reply::tool_calls(vec![ToolCall::new("Read", json!({"file_path": ".env"}))]);
    let modes = [
        "default",
        "acceptEdits",
        "plan",
        "dontAsk",
        "bypassPermissions",
    ];
    let mut script = Script::new();
    for _ in modes {
        script = script.reply(read()).reply(Reply::text("Done."));
    }
    let w = World::new(script).await;
    std::fs::write(
        w.project_path().join(".env"),
        "PLAIN_CANARY=canary-value-42\n",
    )
    .unwrap();
    for (i, mode) in modes.iter().enumerate() {
        let mut send = w.start(&["send", "--mode", mode, "--output", "json", "read .env"]);
        if matches!(*mode, "default" | "acceptEdits" | "plan") {
            let line = send.until_stderr(|l| l.starts_with("permission: ")).await;
            let req = line.split(' ').nth(1).unwrap().to_string();
            assert_eq!(line, format!("permission: {req} Read .env"), "{mode}");
            let pending = w.run(&["pending", "--json"]).await.json();
            let reason = pending[0].to_string();
            assert!(
                reason.contains("usually holds credentials"),
                "{mode}: {reason}"
            );
            assert_eq!(w.run(&["deny", &req]).await.code, 0);
        }
        let out = send.finish().await;
        assert_eq!(out.code, 0, "{mode}: {out:?}");
        let body = w.mock.requests()[2 * i + 1].body.to_string();
        match *mode {
            "bypassPermissions" => assert!(body.contains("canary-value-42"), "{body}"),
            "dontAsk" => {
                assert!(
                    !body.contains("canary-value-42") && body.contains("dontAsk"),
                    "{body}"
                )
            }
            _ => assert!(
                !body.contains("canary-value-42") && body.contains("the user refused"),
                "{mode}: {body}"
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_command_output_is_redacted_everywhere_and_grep_leaves_dot_env_out() {
    let canary = aws_canary();
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                // Large enough to be spilled to a file (context layer 1).
                json!({"command": "cat .env; seq 1 30000"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Grep",
                json!({"pattern": "AWS", "glob": ".env*", "output_mode": "content"}),
            )]))
            .reply(Reply::text("Done.")),
    )
    .await;
    std::fs::write(
        w.project_path().join(".env"),
        format!("AWS_ACCESS_KEY_ID={canary}\n"),
    )
    .unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "json",
            "show the env",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 3);
    let bash_result = requests[1].body.to_string();
    assert!(!bash_result.contains(&canary), "{bash_result}");
    assert!(
        bash_result.contains("AWS_ACCESS_KEY_ID=[redacted: aws-access-key]")
            && bash_result.contains("RooCode replaced 1 credential"),
        "{bash_result}"
    );
    let spilled = files_containing(
        &w.home.path().join("data/tool-results"),
        "[redacted: aws-access-key]",
    );
    assert_eq!(spilled.len(), 1, "the spilled result holds the marker");
    let grep_result = requests[2].body.to_string();
    assert!(
        grep_result.contains("left out of this search: .env") && !grep_result.contains(&canary),
        "{grep_result}"
    );
    // Nothing RooCode keeps (database, WAL, spilled files, logs) holds the key.
    assert_eq!(
        files_containing(w.home.path(), &canary),
        Vec::<std::path::PathBuf>::new()
    );
    // Only the project's own file does.
    assert!(
        std::fs::read_to_string(w.project_path().join(".env"))
            .unwrap()
            .contains(&canary)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_redact_false_turns_redaction_off() {
    let canary = aws_canary();
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "cat .env"}),
            )]))
            .reply(Reply::text("Done.")),
    )
    .await;
    let project = w.project_path();
    std::fs::write(project.join(".env"), format!("KEY={canary}\n")).unwrap();
    std::fs::create_dir_all(project.join(".roocode")).unwrap();
    std::fs::write(
        project.join(".roocode/config.yaml"),
        "security:\n  redact: false\n",
    )
    .unwrap();
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "show the env"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let body = w.mock.requests()[1].body.to_string();
    assert!(
        body.contains(&canary) && !body.contains("[redacted:"),
        "{body}"
    );
}
