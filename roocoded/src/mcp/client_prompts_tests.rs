//! Prompts through the real client and supervisor, against the tests' MCP server
//! (`mcp-fixture`) over stdio.

use roocode_tests::mcp_fixture::README;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::mcp::prompt_text::to_text;
use crate::mcp::server::{Server, State};
use crate::mcp::test_support::fixture_stdio;

const WAIT: Duration = Duration::from_secs(10);

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn names(prompts: &[McpPrompt]) -> Vec<&str> {
    prompts.iter().map(|p| p.name.as_str()).collect()
}

#[tokio::test]
async fn prompts_are_listed_got_and_listed_again_when_they_change() {
    let stop = CancellationToken::new();
    let server = Server::new("fixture", fixture_stdio(&[]), WAIT, WAIT, stop.clone());
    server.spawn();
    let now = server.connected(WAIT).await;
    let State::Connected {
        client, prompts, ..
    } = now.state
    else {
        panic!("not connected: {:?}", now.last_error);
    };
    assert!(client.has_prompts());
    assert_eq!(names(&prompts), ["greet", "review_readme", "more_prompts"]);
    let greet = &prompts[0];
    assert_eq!(greet.description.as_deref(), Some("Greets someone"));
    assert_eq!(
        greet.arguments,
        [
            McpPromptArg {
                name: "name".into(),
                description: Some("Who to greet".into()),
                required: true
            },
            McpPromptArg {
                name: "style".into(),
                description: Some("How: formal, cheerful…".into()),
                required: false
            },
        ]
    );
    assert!(prompts[1].arguments.is_empty());

    let text = |messages: Vec<McpPromptMessage>| to_text(&messages);
    let hello = client
        .prompt("greet", &args(&[("name", "Ann")]), WAIT)
        .await
        .unwrap();
    assert_eq!(text(hello), "Say hello to Ann in a plain way.");
    let hello = client
        .prompt(
            "greet",
            &args(&[("name", "Ann"), ("style", "cheerful")]),
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(text(hello), "Say hello to Ann in a cheerful way.");
    let review = client
        .prompt("review_readme", &args(&[]), WAIT)
        .await
        .unwrap();
    assert_eq!(
        text(review),
        format!("Review the readme below.\n\n{README}\n\nassistant: Here is my review.\n\n[image]")
    );
    let missing = client.prompt("greet", &args(&[]), WAIT).await;
    assert!(
        matches!(&missing, Err(McpError::Refused(m)) if m.contains("`name` is required")),
        "{missing:?}"
    );
    let unknown = client.prompt("nope", &args(&[]), WAIT).await;
    assert!(matches!(unknown, Err(McpError::Refused(_))), "{unknown:?}");

    // `more_prompts` adds one and says so: the supervisor lists them again, and the
    // tools' generation stays.
    let generation = server.snapshot().generation;
    let added = client
        .prompt("more_prompts", &args(&[]), WAIT)
        .await
        .unwrap();
    assert_eq!(text(added), "Added the prompt extra_1.");
    let mut rx = server.watch();
    let listed = tokio::time::timeout(
        WAIT,
        rx.wait_for(|s| match &s.state {
            State::Connected { prompts, .. } => prompts.iter().any(|p| p.name == "extra_1"),
            _ => false,
        }),
    )
    .await;
    assert!(listed.is_ok(), "the changed prompts were listed again");
    assert_eq!(server.snapshot().generation, generation);
    stop.cancel();
}

#[tokio::test]
async fn a_server_announcing_no_prompts_is_not_asked_for_them() {
    let (client, _connection) =
        McpClient::connect("fixture", &fixture_stdio(&["--no-prompts"]), WAIT)
            .await
            .unwrap();
    assert!(!client.has_prompts());
    // The fixture would answer `prompts/list` anyway: an empty list means it was not asked.
    assert_eq!(client.prompts().await.unwrap(), []);
    assert!(
        client
            .tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "echo")
    );
}
