//! The MCP host through the real daemon, against the tests' real MCP server
//! (`mcp-fixture`, written with rmcp's server side) over stdio and streamable HTTP:
//! the server's tools in the request under `mcp__<server>__<tool>` with their schemas,
//! calls through the agent loop and the permission gate on both providers, results as
//! the model reads them, a crash and the restart, and project servers waiting for the
//! user's approval.

use roocode_tests::mcp_fixture::{INSTRUCTIONS, serve_http};
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Api, World, bin};

/// The names in a recorded request's tool array (either protocol).
fn tool_names(body: &Value) -> Vec<String> {
    tools(body).into_iter().map(|(name, _)| name).collect()
}

/// (name, input schema) of each tool in a recorded request (either protocol).
fn tools(body: &Value) -> Vec<(String, Value)> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| match t.get("function") {
            Some(f) => (
                f["name"].as_str().unwrap_or_default().to_string(),
                f["parameters"].clone(),
            ),
            None => (
                t["name"].as_str().unwrap_or_default().to_string(),
                t["input_schema"].clone(),
            ),
        })
        .collect()
}

/// The text of the tool results in a recorded request's last messages (either
/// protocol), with their error flag (Anthropic only; OpenAI has none).
fn results(body: &Value) -> Vec<(String, bool)> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for m in messages.iter().rev() {
        if m["role"] == "tool" {
            out.push((m["content"].as_str().unwrap_or_default().to_string(), false));
            continue;
        }
        if !out.is_empty() {
            break;
        }
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(blocks) => blocks
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    other => other.to_string(),
                };
                out.push((text, b["is_error"].as_bool().unwrap_or(false)));
            }
        }
        break;
    }
    out.reverse();
    out
}

/// Everything the model was told in a request, as one string (reminders included).
fn said(body: &Value) -> String {
    body["messages"].to_string()
}

/// A project whose local config runs the stdio fixture as `fixture`, with `extra`
/// config lines after it.
fn stdio_project(w: &World, extra: &str) {
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        format!(
            "mcp_servers:\n  fixture:\n    command: {:?}\n{extra}",
            bin("mcp-fixture").display().to_string()
        ),
    )
    .unwrap();
}

fn echo_then_done(server: &str) -> Script {
    Script::new()
        .reply(Reply::tool_calls(vec![ToolCall::new(
            format!("mcp__{server}__echo"),
            json!({"text": "hello mcp"}),
        )]))
        .reply(Reply::text("Echoed."))
}

async fn a_stdio_server_s_tools_are_called_through_the_loop(api: Api) {
    let w = World::with_api(api, echo_then_done("fixture")).await;
    stdio_project(&w, "permissions:\n  allow: [\"mcp__fixture__echo\"]\n");
    let out = w.run(&["send", "say hello through the fixture"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Echoed."), "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0].body;
    let names = tool_names(first);
    for tool in [
        "mcp__fixture__echo",
        "mcp__fixture__image",
        "mcp__fixture__slow",
        "mcp__fixture__crash",
        "mcp__fixture__fail",
        "mcp__fixture__notes_search",
    ] {
        assert!(names.contains(&tool.to_string()), "{tool} in {names:?}");
    }
    assert!(names.contains(&"Read".to_string()), "the built-ins stay");
    let (_, schema) = tools(first)
        .into_iter()
        .find(|(n, _)| n == "mcp__fixture__notes_search")
        .unwrap();
    assert_eq!(schema["type"], "object");
    assert!(!schema.to_string().contains("\"$ref\""), "{schema}");
    assert!(
        schema["properties"]["within"]["anyOf"][0]["properties"]["from"].is_object(),
        "the reference is inlined: {schema}"
    );
    assert!(
        said(first).contains(INSTRUCTIONS),
        "the server's instructions are sent"
    );
    assert_eq!(
        results(&requests[1].body),
        [("echo: hello mcp".to_string(), false)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_s_tools_are_called_through_the_loop_on_anthropic() {
    a_stdio_server_s_tools_are_called_through_the_loop(Api::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_s_tools_are_called_through_the_loop_on_openai() {
    a_stdio_server_s_tools_are_called_through_the_loop(Api::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_works_with_its_headers_expanded() {
    let (addr, server) = serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let mut w = World::new(echo_then_done("remote")).await;
    w.vars.push(("FIXTURE_TOKEN".into(), "t0ken".into()));
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        format!(
            "mcp_servers:\n  remote:\n    type: http\n    url: \"http://{addr}/mcp\"\n    headers: {{X-Token: \"${{FIXTURE_TOKEN}}\"}}\npermissions:\n  allow: [\"mcp__remote__*\"]\n"
        ),
    )
    .unwrap();
    let out = w.run(&["send", "echo it remotely"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert!(tool_names(&requests[0].body).contains(&"mcp__remote__echo".to_string()));
    assert_eq!(
        results(&requests[1].body),
        [("echo: hello mcp".to_string(), false)]
    );
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_stops_an_mcp_call_and_an_unruled_one_asks() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__echo",
                json!({"text": "denied"}),
            )]))
            .reply(Reply::text("Could not.")),
    )
    .await;
    stdio_project(&w, "permissions:\n  deny: [\"mcp__fixture\"]\n");
    let out = w.run(&["send", "try the fixture"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let sent = results(&requests[1].body);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].1, "a denial is an error result: {sent:?}");
    assert!(!sent[0].0.contains("echo: denied"), "{sent:?}");

    // No rule: the call waits for a human, even though the server is local.
    let w = World::new(echo_then_done("fixture")).await;
    stdio_project(&w, "");
    let first = w.run(&["send", "--no-wait", "echo"]).await;
    let id = first.session_id();
    let mut attached = w.start(&["attach", &id, "--output", "stream-json"]);
    let request = attached.until_event("permission_request").await;
    assert_eq!(request["tool"], "mcp__fixture__echo");
    let req = request["request_id"].as_str().unwrap().to_string();
    assert_eq!(w.run(&["approve", &req]).await.code, 0);
    attached.until(|l| l.contains("\"turn_completed\"")).await;
    let requests = w.mock.requests();
    assert_eq!(
        results(&requests[1].body),
        [("echo: hello mcp".to_string(), false)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_keep_their_kind_and_a_crash_is_survived() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__fail",
                json!({}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__crash",
                json!({}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__echo",
                json!({"text": "after the crash"}),
            )]))
            .reply(Reply::text("Survived.")),
    )
    .await;
    stdio_project(&w, "permissions:\n  allow: [\"mcp__fixture__*\"]\n");
    let mut cmd = w.cli(&["send", "fail, crash, then echo"]);
    cmd.env("ROOCODE_MCP_RESTART_MS", "10");
    let out = crate::harness::finish(cmd.spawn().unwrap()).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 4);
    let failed = results(&requests[1].body);
    assert_eq!(
        failed,
        [("the fixture failed on purpose".to_string(), true)]
    );
    let crashed = results(&requests[2].body);
    assert!(crashed[0].1, "{crashed:?}");
    assert!(crashed[0].0.contains("crashed"), "{crashed:?}");
    assert_eq!(
        results(&requests[3].body),
        [("echo: after the crash".to_string(), false)],
        "the restarted server answers"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_argument_that_breaks_the_server_s_schema_never_reaches_it() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__echo",
                json!({"text": 5}),
            )]))
            .reply(Reply::text("Fixed.")),
    )
    .await;
    stdio_project(&w, "permissions:\n  allow: [\"mcp__fixture__*\"]\n");
    let out = w.run(&["send", "echo a number"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let sent = results(&w.mock.requests()[1].body);
    assert!(sent[0].1, "{sent:?}");
    assert!(
        sent[0].0.contains("/text"),
        "the problem is pointed at: {sent:?}"
    );
}

async fn deferred_tools_are_found_loaded_and_kept(api: Api) {
    let w = World::with_api(
        api,
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "ToolSearch",
                json!({"query": "select:mcp__fixture__echo"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__echo",
                json!({"text": "found"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "mcp__fixture__fail",
                json!({}),
            )]))
            .reply(Reply::text("Done."))
            .reply(Reply::text("Still here.")),
    )
    .await;
    // A threshold of 0: any MCP schema is too much, every MCP tool is deferred.
    stdio_project(
        &w,
        "mcp:\n  defer_threshold: 0\npermissions:\n  allow: [\"mcp__fixture__*\"]\n",
    );
    let out = w.run(&["send", "find the echo tool and use it"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 4);
    let first = tool_names(&requests[0].body);
    assert!(first.contains(&"ToolSearch".to_string()), "{first:?}");
    assert!(!first.iter().any(|n| n.starts_with("mcp__")), "{first:?}");
    let told = said(&requests[0].body);
    assert!(
        told.contains("mcp__fixture__echo: Says the text back"),
        "{told}"
    );
    assert!(told.contains("mcp__fixture__notes_search"), "{told}");

    let loaded = results(&requests[1].body);
    assert!(loaded[0].0.contains("<function>"), "{loaded:?}");
    let second = tools(&requests[1].body);
    let echo = second
        .iter()
        .find(|(n, _)| n == "mcp__fixture__echo")
        .expect("the found tool is sent with its schema");
    assert_eq!(echo.1["properties"]["text"]["type"], "string");
    assert!(!second.iter().any(|(n, _)| n == "mcp__fixture__fail"));
    assert_eq!(
        results(&requests[2].body),
        [("echo: found".to_string(), false)]
    );

    // A deferred tool called directly runs (its arguments are valid) and is discovered.
    let failed = &results(&requests[3].body)[0].0;
    assert!(
        failed.ends_with("the fixture failed on purpose"),
        "{failed}"
    );
    let fourth = tool_names(&requests[3].body);
    assert!(
        fourth.contains(&"mcp__fixture__fail".to_string()),
        "{fourth:?}"
    );
    // Discoveries need no new word: the reminder came once.
    let reminders = said(&requests[3].body)
        .matches("These tools are deferred")
        .count();
    assert_eq!(reminders, 1);

    // The discovered set survives the daemon.
    let id = out.session_id();
    assert_eq!(w.run(&["daemon", "stop"]).await.code, 0);
    let again = w.run(&["send", "--session", &id, "still there?"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    let after = tool_names(&w.mock.requests()[4].body);
    for kept in ["mcp__fixture__echo", "mcp__fixture__fail"] {
        assert!(after.contains(&kept.to_string()), "{kept} in {after:?}");
    }
    assert!(
        !after.contains(&"mcp__fixture__slow".to_string()),
        "{after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_tools_are_found_loaded_and_kept_on_anthropic() {
    deferred_tools_are_found_loaded_and_kept(Api::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_tools_are_found_loaded_and_kept_on_openai() {
    deferred_tools_are_found_loaded_and_kept(Api::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_listed_and_read() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "ListMcpResources",
                json!({}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "ReadMcpResource",
                json!({"server": "fixture", "uri": "fixture://readme"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "ReadMcpResource",
                json!({"server": "nope", "uri": "fixture://readme"}),
            )]))
            .reply(Reply::text("Read.")),
    )
    .await;
    stdio_project(&w, "permissions:\n  allow: [\"ReadMcpResource\"]\n");
    let out = w.run(&["send", "read the fixture's readme"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let listed = &results(&requests[1].body)[0].0;
    assert!(listed.contains("fixture: fixture://readme"), "{listed}");
    let read = &results(&requests[2].body)[0];
    assert!(!read.1, "{read:?}");
    assert!(
        read.0.contains(roocode_tests::mcp_fixture::README),
        "{read:?}"
    );
    let unknown = &results(&requests[3].body)[0];
    assert!(
        unknown.1 && unknown.0.contains("No MCP server is named `nope`"),
        "{unknown:?}"
    );
}
