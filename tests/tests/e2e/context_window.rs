//! `/context` and the agent loop agree on the context window of a session whose model is
//! an alias (`anthropic/sonnet`): both resolve it to `claude-sonnet-4-5`, 200k tokens.
//! (`/context` once showed 128k there, the window of an unknown model name.)
//!
//! The loop's window is seen through layer 1 of context management: with
//! `context.large_result_chars` set out of the way, a tool result stays inline up to a
//! tenth of the window at four characters a token (80,000 characters for 200k, 51,200
//! for 128k) and is saved to a file past it.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::json;

use crate::harness::{World, last_results};

/// A command printing `n` characters.
fn print_chars(n: usize) -> String {
    format!("head -c {n} /dev/zero | tr '\\0' x")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_on_an_alias_reports_the_window_the_loop_budgets() {
    let mut w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![
                ToolCall::new("Bash", json!({"command": print_chars(70_000)})),
                ToolCall::new("Bash", json!({"command": print_chars(90_000)})),
            ]))
            .reply(Reply::text("Done.")),
    )
    .await;
    w.vars
        .push(("ROOCODE_MODEL".into(), "anthropic/sonnet".into()));
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        "context:\n  large_result_chars: 10000000\n",
    )
    .unwrap();

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "print a lot"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(
        requests[0].body["model"], "claude-sonnet-4-5",
        "the alias is expanded"
    );
    let results = last_results(&requests[1].body);
    assert_eq!(results.len(), 2, "{results:?}");
    // 70,000 characters fit a window over 175k tokens; 90,000 do not fit one of 225k.
    assert!(
        results[0].content.contains(&"x".repeat(70_000)),
        "kept inline by the loop: {} chars",
        results[0].content.len()
    );
    assert!(
        results[1].content.len() < 10_000,
        "saved to a file: {} chars",
        results[1].content.len()
    );

    let ctx = w.run(&["send", "--continue", "/context"]).await;
    assert_eq!(ctx.code, 0, "{ctx:?}");
    assert!(
        ctx.stdout.contains("Context window: 200,000 tokens"),
        "{}",
        ctx.stdout
    );

    // Clients are told the same window (the TUI's status bar divides by it).
    use roocode_protocol::api::SessionApiClient;
    use roocode_protocol::daemon::ClientInfo;
    let me = ClientInfo {
        kind: "test".into(),
        name: "e2e".into(),
        pid: std::process::id(),
    };
    let socket = w.home.path().join("run/roocoded.sock");
    let (rpc, _) = roocode_client::connect(&socket, me).await.unwrap();
    let info = rpc.get(out.session_id()).await.unwrap();
    assert_eq!(info.context_window, Some(200_000), "{info:?}");
}
