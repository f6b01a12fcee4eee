//! Each agent's tool set, as the model sees it: the configuration's `tools.disabled`
//! and `tools.bash: false` take tools out of the request's tool array, and a call of a
//! tool outside the set is an unknown tool listing the set.

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::json;

use crate::harness::{World, last_results};

/// The names in a recorded request's tool array.
fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_tools_are_not_sent_and_cannot_be_called() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "echo should-not-run > ran.txt"}),
            )]))
            .reply(Reply::text("Done.")),
    )
    .await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.yaml"),
        "tools:\n  disabled: [WebFetch]\n  bash: false\n",
    )
    .unwrap();
    // A later file cannot bring Bash back.
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        "tools: {bash: true}\n",
    )
    .unwrap();

    let out = w
        .run(&["send", "--mode", "bypassPermissions", "run a command"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let names = tool_names(&requests[0].body);
    for gone in ["WebFetch", "Bash", "BashOutput", "KillShell"] {
        assert!(
            !names.iter().any(|n| n == gone),
            "{gone} was sent: {names:?}"
        );
    }
    assert!(names.iter().any(|n| n == "Read"), "{names:?}");
    let results = last_results(&requests[1].body);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0]
            .content
            .starts_with("Unknown tool `Bash`. The available tools are: Read,"),
        "{}",
        results[0].content
    );
    assert!(
        !results[0].content.contains("KillShell"),
        "{}",
        results[0].content
    );
    assert!(!p.join("ran.txt").exists(), "the disabled tool ran");
}
