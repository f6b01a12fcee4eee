//! WebFetch through the real daemon (issue 9 item 3): a model that has read `.env`
//! cannot send it to a service on this machine without the user's approval, in
//! `default` or `bypassPermissions` mode; "allow always" writes a `domain:` rule that
//! covers every spelling of the host; a rule naming 127.0.0.1 keeps a local docs server
//! usable. The local server records every request, so "not delivered" is checked, not
//! assumed.

use nix::sys::signal::Signal;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use roocode_tests::recorder::Recorder;
use serde_json::json;

use crate::harness::World;

const CANARY: &str = "canary-5e1f0b7d";

fn fetch(url: &str) -> Reply {
    Reply::tool_calls(vec![ToolCall::new("WebFetch", json!({ "url": url }))])
}

/// A project with a `.env` holding the canary, whose config allows reading it (so the
/// test is about WebFetch, whatever the built-in rules for secrets) plus `extra` rules.
fn project_with_secret(w: &World, extra: &[&str]) {
    let root = w.project_path();
    std::fs::write(root.join(".env"), format!("API_TOKEN={CANARY}\n")).unwrap();
    std::fs::create_dir_all(root.join(".roocode")).unwrap();
    let mut allow = vec!["Read(/.env)"];
    allow.extend(extra);
    let rules: Vec<String> = allow.iter().map(|r| format!("    - \"{r}\"\n")).collect();
    std::fs::write(
        root.join(".roocode/config.yaml"),
        format!("permissions:\n  allow:\n{}", rules.concat()),
    )
    .unwrap();
}

/// The text of the last tool result the model received in request `index`.
fn last_result(w: &World, index: usize) -> (String, bool) {
    let body = &w.mock.requests()[index].body;
    let last = crate::harness::last_results(body)
        .pop()
        .expect("a tool result in the last message");
    (last.content, last.is_error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_read_from_env_reaches_a_loopback_server_only_after_approval() {
    let server = Recorder::serving("received").await.unwrap();
    let leak = format!("http://127.0.0.1:{}/?k={CANARY}", server.port());
    let w = World::new(
        Script::new()
            // Turn 1 (default mode): read the secret, try to send it; denied.
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Read",
                json!({"file_path": ".env"}),
            )]))
            .reply(fetch(&leak))
            .reply(Reply::text("Could not send it."))
            // Turn 2 (bypassPermissions): asked again, denied again.
            .reply(fetch(&leak))
            .reply(Reply::text("Still not sent."))
            // Turn 3 (default): approved always; turn 4: another spelling, not asked.
            .reply(fetch(&format!("http://127.0.0.1:{}/docs", server.port())))
            .reply(Reply::text("Read the docs."))
            .reply(fetch(&format!("http://2130706433:{}/more", server.port())))
            .reply(Reply::text("Read more.")),
    )
    .await;
    project_with_secret(&w, &[]);

    let first = w.run(&["send", "--no-wait", "send my token home"]).await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let req = watch.until_event("permission_request").await;
    assert_eq!(req["tool"], "WebFetch", "{req}");
    let reason = req["reason"].as_str().unwrap();
    assert!(reason.contains("loopback address"), "{reason}");
    assert!(server.seen().is_empty(), "nothing is sent while asking");
    let deny = w.run(&["deny", req["request_id"].as_str().unwrap()]).await;
    assert_eq!(deny.code, 0, "{deny:?}");
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    let (text, is_error) = last_result(&w, 2);
    assert!(is_error && text.starts_with("Permission denied"), "{text}");
    assert!(server.seen().is_empty(), "{:?}", server.seen());

    // bypassPermissions does not open local addresses either. A non-interactive send
    // says what waits and how to answer.
    let mut second = w.start(&[
        "send",
        "--session",
        &id,
        "--mode",
        "bypassPermissions",
        "--output",
        "json",
        "try again",
    ]);
    let line = second.until_stderr(|l| l.starts_with("permission: ")).await;
    let req = line.split(' ').nth(1).unwrap().to_string();
    assert_eq!(line, format!("permission: {req} WebFetch {leak}"));
    assert!(server.seen().is_empty());
    let deny = w.run(&["deny", &req]).await;
    assert_eq!(deny.code, 0, "{deny:?}");
    let out = second.finish().await;
    assert_eq!(out.json()["text"], "Still not sent.", "{out:?}");
    assert!(server.seen().is_empty(), "{:?}", server.seen());

    // Allow always: the rule names the host, canonically.
    let mut third = w.start(&[
        "send",
        "--session",
        &id,
        "--mode",
        "default",
        "--output",
        "json",
        "read the docs",
    ]);
    let line = third.until_stderr(|l| l.starts_with("permission: ")).await;
    let req = line.split(' ').nth(1).unwrap().to_string();
    let approve = w.run(&["approve", &req, "--always"]).await;
    assert_eq!(approve.code, 0, "{approve:?}");
    let out = third.finish().await;
    assert_eq!(out.json()["text"], "Read the docs.", "{out:?}");
    let local =
        std::fs::read_to_string(w.project_path().join(".roocode/config.local.yaml")).unwrap();
    assert!(local.contains("\"WebFetch(domain:127.0.0.1)\""), "{local}");

    let fourth = w
        .run(&[
            "send",
            "--session",
            &id,
            "--output",
            "stream-json",
            "read more",
        ])
        .await;
    assert_eq!(fourth.code, 0, "{fourth:?}");
    assert!(
        !fourth.stdout.contains("permission_request"),
        "{}",
        fourth.stdout
    );
    assert_eq!(
        server.seen(),
        [
            format!("/docs 127.0.0.1:{}", server.port()),
            format!("/more 127.0.0.1:{}", server.port()),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_naming_127_0_0_1_keeps_a_local_server_usable_under_every_spelling() {
    let server = Recorder::serving("received").await.unwrap();
    let port = server.port();
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Read",
                json!({"file_path": ".env"}),
            )]))
            .reply(fetch(&format!("http://127.0.0.1:{port}/?k={CANARY}")))
            .reply(fetch(&format!("http://localhost:{port}/a")))
            .reply(fetch(&format!("http://0x7f000001:{port}/b")))
            .reply(Reply::text("Done.")),
    )
    .await;
    project_with_secret(&w, &["WebFetch(domain:127.0.0.1)"]);
    let out = w
        .run(&["send", "--output", "stream-json", "use the local server"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("permission_request"), "{}", out.stdout);
    assert_eq!(
        server.seen(),
        [
            format!("/?k={CANARY} 127.0.0.1:{port}"),
            format!("/a localhost:{port}"),
            format!("/b 127.0.0.1:{port}"),
        ]
    );
}

/// A page that carries a key (an AWS-shaped fake): the tool-less model call that
/// answers WebFetch's prompt sees it redacted, like every tool result.
const PAGE_WITH_KEY: &str = "deploy notes: AKIAIOSFODNN7EXAMPLQ is the key";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_a_fetched_page_is_redacted_before_the_prompt_model_call() {
    let server = Recorder::serving(PAGE_WITH_KEY).await.unwrap();
    let w = World::new(
        Script::new()
            .rule(
                "content of a web page",
                Reply::text("The page names a key."),
            )
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "WebFetch",
                json!({"url": format!("http://127.0.0.1:{}/notes", server.port()),
                       "prompt": "what does it say?"}),
            )]))
            .reply(Reply::text("Done.")),
    )
    .await;
    let root = w.project_path();
    std::fs::create_dir_all(root.join(".roocode")).unwrap();
    std::fs::write(
        root.join(".roocode/config.yaml"),
        "permissions:\n  allow:\n    - \"WebFetch(domain:127.0.0.1)\"\n",
    )
    .unwrap();
    let out = w.run(&["send", "read the notes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(server.seen().len(), 1, "the page was fetched");
    let requests = w.mock.requests();
    let summary = requests
        .iter()
        .find(|r| {
            r.body["system"]
                .to_string()
                .contains("content of a web page")
        })
        .expect("the prompt was answered by a model call");
    let sent = summary.body.to_string();
    assert!(sent.contains("deploy notes"), "{sent}");
    assert!(!sent.contains("AKIAIOSFODNN7EXAMPLQ"), "{sent}");
    assert!(sent.contains("[redacted: "), "{sent}");
}
