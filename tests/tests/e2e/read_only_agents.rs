//! The built-in `Explore` agent only looks, and RooCode enforces it rather than its
//! prompt: started by a parent in `bypassPermissions` (which it inherits), its Bash
//! runs a reading command but a writing one is denied before it runs; it gets no
//! tool that writes, and it runs on the cheaper model of the parent's provider.

use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ToolCall};
use serde_json::json;

use crate::harness::{World, last_results};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explore_runs_reading_commands_and_is_denied_the_others() {
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("EXPLORE-TASK".into()),
            [
                Reply::tool_calls(vec![
                    ToolCall::new("Bash", json!({"command": "rm keep.txt"})),
                    ToolCall::new("Bash", json!({"command": "ls -la"})),
                ]),
                Reply::text("keep.txt is the only file."),
            ],
        )
        .route(
            RouteMatch::FirstUserContains("PARENT-TASK".into()),
            [
                Reply::tool_call(
                    "Agent",
                    json!({
                        "subagent_type": "Explore",
                        "description": "List the files",
                        "prompt": "EXPLORE-TASK: list the files of the project, quick.",
                    }),
                ),
                Reply::text("The explorer is done."),
            ],
        );
    let w = World::new(script).await;
    let p = w.project_path();
    std::fs::write(p.join("keep.txt"), "still here\n").unwrap();

    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "PARENT-TASK: look around",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        p.join("keep.txt").exists(),
        "the read-only agent deleted a file"
    );

    let requests = w.mock.requests();
    let child: Vec<_> = requests
        .iter()
        .filter(|r| r.body.to_string().contains("EXPLORE-TASK: list the files"))
        .filter(|r| !r.body.to_string().contains("PARENT-TASK"))
        .collect();
    assert_eq!(child.len(), 2, "the child's two requests: {requests:?}");

    // Its system prompt is Explore's, its model the haiku of the parent's provider, and
    // nothing in its tool array writes.
    let first = &child[0].body;
    assert!(
        first["system"].to_string().contains("You are Explore"),
        "{}",
        first["system"]
    );
    assert_eq!(first["model"], "claude-haiku-4-5");
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"Bash") && tools.contains(&"Grep"),
        "{tools:?}"
    );
    for writer in ["Write", "Edit", "KillShell", "Agent"] {
        assert!(!tools.contains(&writer), "{writer} was sent: {tools:?}");
    }

    let results = last_results(&child[1].body);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0]
            .content
            .contains("`rm keep.txt` is not a read-only command")
            && results[0]
                .content
                .contains("This agent can only run read-only commands"),
        "{}",
        results[0].content
    );
    assert!(!results[1].is_error, "{results:?}");
    assert!(results[1].content.contains("keep.txt"), "{results:?}");

    // The parent got the child's answer as its tool result.
    let parent_last = requests
        .iter()
        .rev()
        .find(|r| r.body.to_string().contains("PARENT-TASK"))
        .unwrap();
    let parent_results = last_results(&parent_last.body);
    assert!(
        parent_results
            .iter()
            .any(|r| r.content.contains("keep.txt is the only file.")),
        "{parent_results:?}"
    );
}
