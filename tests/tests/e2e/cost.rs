//! `/cost` through `roocode-cli`: after a turn whose WebFetch call makes a model call of
//! its own, a second turn and a `/compact`, the report's rows carry exactly the tokens
//! the mock reported, split by agent and by purpose, and the cost at the model's price.

use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, UsageSpec};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::harness::World;

/// A reply with fixed token counts (input, output, cache read, cache write).
fn with_usage(reply: Reply, (input, output, read, write): (u64, u64, u64, u64)) -> ScriptedReply {
    ScriptedReply::new(reply).with_usage(UsageSpec {
        input_tokens: Some(input),
        output_tokens: Some(output),
        cache_read_input_tokens: Some(read),
        cache_creation_input_tokens: Some(write),
    })
}

/// Serves one plain-text page to every request on a loopback port; returns its URL.
async fn serve_page(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/release-notes.txt")
}

/// The cells of the report line labelled `label`, time excluded: cost, input, output,
/// cache read, cache write, calls.
fn row<'a>(report: &'a str, label: &str) -> Vec<&'a str> {
    let line = report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no `{label}` row in:\n{report}"));
    line.split_whitespace().skip(1).take(6).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_splits_tokens_by_agent_and_purpose_after_a_tool_turn_and_a_compaction() {
    let url = serve_page("Release 1.2.3: faster parser.").await;
    let w = World::new(
        Script::new()
            .reply(with_usage(
                Reply::tool_call(
                    "WebFetch",
                    json!({"url": url, "prompt": "Which version is the latest?"}),
                ),
                (1_000, 40, 2_000, 200),
            ))
            // WebFetch's own model call, answering its prompt from the page.
            .reply(with_usage(Reply::text("Version 1.2.3."), (500, 12, 0, 0)))
            .reply(with_usage(
                Reply::text("The latest is 1.2.3."),
                (1_200, 20, 2_000, 0),
            ))
            .reply(with_usage(Reply::text("You're welcome."), (1_300, 5, 0, 0)))
            .reply(with_usage(
                Reply::text("## Goal\nFind the latest release."),
                (900, 60, 0, 0),
            )),
    )
    .await;
    // WebFetch of a loopback address asks in every mode unless a rule names the host.
    std::fs::create_dir_all(w.project_path().join(".roocode")).unwrap();
    std::fs::write(
        w.project_path().join(".roocode/config.yaml"),
        "permissions:\n  allow: [\"WebFetch(domain:127.0.0.1)\"]\n",
    )
    .unwrap();
    let first = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "which release is the latest?",
        ])
        .await;
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.stdout, "The latest is 1.2.3.\n");
    let id = first.session_id();
    let second = w.run(&["send", "--session", &id, "thanks"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    let compact = w.run(&["send", "--session", &id, "/compact"]).await;
    assert!(compact.stdout.starts_with("Compacted:"), "{compact:?}");
    assert_eq!(w.mock.request_count(), 5);

    let out = w.run(&["send", "--session", &id, "/cost"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let report = out.stdout;
    // claude-sonnet-4-5: $3 input, $15 output, $0.30 cache read, $3.75 cache write per
    // million tokens.
    // Conversation: 3,500 in, 65 out, 4,000 cache read, 200 cache write = $0.013425.
    // WebFetch: 500 in, 12 out = $0.00168. Compaction: 900 in, 60 out = $0.0036.
    assert!(report.starts_with("Cost: $0.0187\n"), "{report}");
    assert_eq!(
        row(&report, "Session"),
        ["$0.0187", "4,900", "137", "4,000", "200", "5"],
        "{report}"
    );
    assert_eq!(
        row(&report, "main"),
        ["$0.0187", "4,900", "137", "4,000", "200", "5"],
        "{report}"
    );
    assert_eq!(
        row(&report, "conversation"),
        ["$0.0134", "3,500", "65", "4,000", "200", "3"],
        "{report}"
    );
    assert_eq!(
        row(&report, "WebFetch"),
        ["$0.0017", "500", "12", "0", "0", "1"],
        "{report}"
    );
    assert_eq!(
        row(&report, "compaction"),
        ["$0.0036", "900", "60", "0", "0", "1"],
        "{report}"
    );
    assert_eq!(
        row(&report, "anthropic/claude-sonnet-4-5")[..2],
        ["$0.0187", "5"],
        "{report}"
    );
    // The session's totals (as `sessions` and the TUI's status bar see them) agree.
    let sessions = w.run(&["sessions", "--json"]).await;
    let session = &sessions.json()[0];
    assert_eq!(session["usage"]["input_tokens"], 4_900, "{session}");
    assert_eq!(session["usage"]["output_tokens"], 137, "{session}");
}
