//! An MCP tool's image through the real daemon, on both providers: the fixture's
//! `image` tool returns text and a PNG; the next request carries the PNG as an image
//! block inside the tool_result (Anthropic) or as an `image_url` in a user message
//! right after the tool message (OpenAI, whose tool messages take only text). Clients
//! get a note instead of the bytes, and the image survives export and import.

use roocode_protocol::event::EventPayload;
use roocode_tests::mcp_fixture::PIXEL_PNG;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Api, World, bin, events_until};

/// A project whose local config runs the stdio fixture as `fixture`, its tools allowed.
fn fixture_project(w: &World) {
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        format!(
            "mcp_servers:\n  fixture:\n    command: {:?}\npermissions:\n  allow: [\"mcp__fixture__*\"]\n",
            bin("mcp-fixture").display().to_string()
        ),
    )
    .unwrap();
}

/// The messages of a recorded request.
fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// Asserts that `body` answers call `id` with the fixture's text and its PNG, the way
/// `api` carries images.
fn assert_sends_the_pixel(api: Api, body: &Value, id: &str) {
    let messages = messages(body);
    match api {
        Api::Anthropic => {
            let result = messages
                .iter()
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
                .unwrap_or_else(|| panic!("no result for {id}: {body}"));
            assert_eq!(
                result["content"],
                json!([
                    {"type": "text", "text": "one pixel:"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL_PNG}},
                ]),
                "{result}"
            );
        }
        Api::OpenAi => {
            let at = messages
                .iter()
                .position(|m| m["role"] == "tool" && m["tool_call_id"] == id)
                .unwrap_or_else(|| panic!("no tool message for {id}: {body}"));
            assert_eq!(messages[at]["content"], "one pixel:");
            assert!(
                messages[at - 1]["tool_calls"][0]["id"] == id,
                "the tool message follows the call: {body}"
            );
            assert_eq!(
                messages[at + 1],
                json!({"role": "user", "content": [
                    {"type": "text", "text": format!("(images returned by tool call {id})")},
                    {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PIXEL_PNG}")}},
                ]}),
                "the image is in the user message right after the tool message"
            );
        }
    }
}

async fn an_mcp_image_reaches_the_model_and_survives_export_and_import(api: Api) {
    let w = World::with_api(
        api,
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "img1",
                "mcp__fixture__image",
                json!({}),
            )]))
            .reply(Reply::text("A single pixel."))
            .reply(Reply::text("Still the pixel.")),
    )
    .await;
    fixture_project(&w);
    let out = w.run(&["send", "show me the fixture's image"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("A single pixel."), "{out:?}");
    assert!(!out.stdout.contains(PIXEL_PNG), "no base64 on the terminal");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 2);
    assert_sends_the_pixel(api, &requests[1].body, "img1");

    // Clients are told of the image, not sent its bytes.
    let id = out.session_id();
    let events = events_until(&w, &id, |evs| {
        evs.iter()
            .any(|e| matches!(e.payload, EventPayload::ToolResult { .. }))
    })
    .await;
    let shown = events
        .iter()
        .find_map(|e| match &e.payload {
            EventPayload::ToolResult { output, .. } => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        shown.starts_with("one pixel:\n[image image/png, "),
        "{shown}"
    );
    assert!(!shown.contains(PIXEL_PNG), "{shown}");

    // The export holds the image; importing it gives a session whose next request
    // sends the image again.
    let export = w.run(&["export", &id]).await;
    assert_eq!(export.code, 0, "{export:?}");
    assert!(
        export.stdout.contains(&format!(
            r#""images":[{{"media_type":"image/png","data":"{PIXEL_PNG}"}}]"#
        )),
        "{}",
        export.stdout
    );
    let file = w.project_path().join("session.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();
    let import = w.run(&["import", file.to_str().unwrap()]).await;
    assert_eq!(import.code, 0, "{import:?}");
    let new_id = import.stdout.trim().to_string();
    let again = w.run(&["export", &new_id]).await;
    assert_eq!(again.stdout, export.stdout, "export → import → export");
    let cont = w.run(&["send", "--session", &new_id, "and now?"]).await;
    assert_eq!(cont.code, 0, "{cont:?}");
    let requests = w.mock.requests();
    assert_eq!(requests.len(), 3);
    assert_sends_the_pixel(api, &requests[2].body, "img1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_image_reaches_the_model_and_survives_export_and_import_on_anthropic() {
    an_mcp_image_reaches_the_model_and_survives_export_and_import(Api::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_image_reaches_the_model_and_survives_export_and_import_on_openai() {
    an_mcp_image_reaches_the_model_and_survives_export_and_import(Api::OpenAi).await;
}
