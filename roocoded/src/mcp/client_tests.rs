//! The client against the tests' real MCP server (`roocode_tests::mcp_fixture`), over
//! streamable HTTP in-process and over stdio as the `mcp-fixture` binary.

use roocode_tests::mcp_fixture::{INSTRUCTIONS, PIXEL_PNG, README, serve_http};
use serde_json::json;

use super::*;
use crate::mcp::test_support::fixture_stdio;

const SECOND: Duration = Duration::from_secs(10);

fn stdio() -> Launch {
    fixture_stdio(&[])
}

fn never() -> CancellationToken {
    CancellationToken::new()
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[tokio::test]
async fn tools_resources_and_results_over_streamable_http() {
    let (addr, server) = serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let launch = Launch::Http {
        url: format!("http://{addr}/mcp"),
        headers: [("X-Test".to_string(), "yes".to_string())].into(),
    };
    let (client, connection) = McpClient::connect("fixture", &launch, SECOND)
        .await
        .unwrap();
    assert_eq!(client.instructions().as_deref(), Some(INSTRUCTIONS));

    let tools = client.tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for name in ["echo", "image", "slow", "crash", "fail", "notes.search"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let search = tools.iter().find(|t| t.name == "notes.search").unwrap();
    let schema = search.input_schema.to_string();
    assert!(
        schema.contains("$ref") || schema.contains("$defs"),
        "{schema}"
    );

    let echoed = client
        .call("echo", args(json!({"text": "hi"})), SECOND, &never(), None)
        .await
        .unwrap();
    assert_eq!(echoed.content, [McpContent::Text("echo: hi".into())]);
    assert!(!echoed.is_error);

    let image = client
        .call("image", Map::new(), SECOND, &never(), None)
        .await
        .unwrap();
    assert_eq!(
        image.content[1],
        McpContent::Image {
            data: PIXEL_PNG.into(),
            mime_type: "image/png".into()
        }
    );
    let failed = client
        .call("fail", Map::new(), SECOND, &never(), None)
        .await
        .unwrap();
    assert!(failed.is_error);

    let slow = client
        .call(
            "slow",
            args(json!({"ms": 5000})),
            Duration::from_millis(100),
            &never(),
            None,
        )
        .await;
    assert!(matches!(slow, Err(McpError::CallTimeout(_))), "{slow:?}");
    let unknown = client
        .call("no_such_tool", Map::new(), SECOND, &never(), None)
        .await;
    assert!(matches!(unknown, Err(McpError::Refused(_))), "{unknown:?}");

    let resources = client.resources().await.unwrap();
    assert_eq!(resources[0].uri, "fixture://readme");
    let read = client
        .read_resource("fixture://readme", SECOND)
        .await
        .unwrap();
    assert!(
        matches!(&read[0], McpContent::ResourceText { text, .. } if text == README),
        "{read:?}"
    );
    drop(connection);
    server.abort();
}

#[tokio::test]
async fn a_stdio_server_that_crashes_fails_its_calls() {
    let (client, connection) = McpClient::connect("fixture", &stdio(), SECOND)
        .await
        .unwrap();
    let echoed = client
        .call(
            "echo",
            args(json!({"text": "over stdio"})),
            SECOND,
            &never(),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        echoed.content,
        [McpContent::Text("echo: over stdio".into())]
    );
    let crashed = client
        .call("crash", Map::new(), SECOND, &never(), None)
        .await;
    assert!(matches!(crashed, Err(McpError::Closed(_))), "{crashed:?}");
    let after = client
        .call("echo", args(json!({"text": "x"})), SECOND, &never(), None)
        .await;
    assert!(matches!(after, Err(McpError::Closed(_))), "{after:?}");
    let ended = tokio::time::timeout(SECOND, connection.closed()).await;
    assert!(ended.is_ok(), "the connection's end is seen");
}

#[tokio::test]
async fn a_cancelled_call_is_given_up_and_the_server_goes_on() {
    let (client, _connection) = McpClient::connect("fixture", &stdio(), SECOND)
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let heard = Arc::new(Mutex::new(String::new()));
    let sink: ProgressSink = {
        let heard = Arc::clone(&heard);
        Arc::new(move |text: &str| heard.lock().unwrap().push_str(text))
    };
    let slow = client.call(
        "slow",
        args(json!({"ms": 30000})),
        SECOND * 6,
        &cancel,
        Some(sink),
    );
    let cancelling = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    };
    let (slow, ()) = tokio::join!(slow, cancelling);
    assert!(matches!(slow, Err(McpError::Cancelled)), "{slow:?}");
    assert!(heard.lock().unwrap().contains("sleeping"), "{heard:?}");
    let echoed = client
        .call(
            "echo",
            args(json!({"text": "still here"})),
            SECOND,
            &never(),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        echoed.content,
        [McpContent::Text("echo: still here".into())]
    );
}

#[tokio::test]
async fn a_server_that_cannot_start_or_never_answers_says_so() {
    let missing = Launch::Stdio {
        command: "/nonexistent/mcp-server".into(),
        args: vec![],
        env: Default::default(),
        cwd: std::env::temp_dir(),
    };
    let err = McpClient::connect("gone", &missing, SECOND)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, McpError::Start(m) if m.contains("/nonexistent/mcp-server")),
        "{err}"
    );

    let silent = Launch::Stdio {
        command: "sleep".into(),
        args: vec!["30".into()],
        env: Default::default(),
        cwd: std::env::temp_dir(),
    };
    let err = McpClient::connect("silent", &silent, Duration::from_millis(200))
        .await
        .err()
        .unwrap();
    assert!(matches!(err, McpError::StartTimeout(_)), "{err}");
}
