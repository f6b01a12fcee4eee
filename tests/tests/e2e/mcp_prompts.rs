//! MCP prompts as slash commands through the real binaries: the fixture server's
//! prompts are listed by `/help` as `/mcp__<server>__<prompt>` with their arguments,
//! and running one starts a turn whose message is the prompt the server returned,
//! its arguments mapped onto the declared ones; a missing required one is an error.

use roocode_tests::mock_llm::{Reply, Script};

use crate::harness::{World, bin};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_prompt_runs_as_a_slash_command() {
    let w = World::new(Script::new().reply(Reply::text("Hello, Ann!"))).await;
    let p = w.project_path();
    std::fs::create_dir_all(p.join(".roocode")).unwrap();
    std::fs::write(
        p.join(".roocode/config.local.yaml"),
        format!(
            "mcp_servers:\n  fixture:\n    command: {:?}\n",
            bin("mcp-fixture").display().to_string()
        ),
    )
    .unwrap();

    let help = w.run(&["send", "/help"]).await;
    assert_eq!(help.code, 0, "{help:?}");
    assert!(help.stdout.contains("MCP prompts:"), "{help:?}");
    assert!(
        help.stdout.contains("/mcp__fixture__greet <name> [style]"),
        "{help:?}"
    );

    let missing = w.run(&["send", "--continue", "/mcp__fixture__greet"]).await;
    assert_ne!(missing.code, 0, "{missing:?}");
    assert!(missing.stderr.contains("name"), "{missing:?}");
    assert_eq!(w.mock.request_count(), 0);

    let out = w
        .run(&["send", "--continue", "/mcp__fixture__greet Ann style=warm"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Hello, Ann!"), "{out:?}");
    let sent = w.mock.requests()[0].body["messages"].to_string();
    assert!(sent.contains("Say hello to Ann in a warm way."), "{sent}");
}
