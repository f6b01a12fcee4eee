//! The flight recorder end to end (issue 16): what the daemon keeps of each model call
//! — its iteration, time to first token, size by part, the request and response bodies
//! — read back from its database, and secrets set in the client's environment never
//! written there, even when the user pastes one and a command prints it.

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::{Value, json};
use sqlx::Connection as _;

use crate::harness::World;

/// What the recorder's writer still holds is written (`trace` flushes it first).
async fn flushed(w: &World, session_id: &str) {
    let out = w.run(&["trace", session_id, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
}

/// Rows of `sql` from the daemon's database (read while it runs: WAL allows it).
async fn query(w: &World, sql: &str) -> Vec<Vec<Option<String>>> {
    use sqlx::Row as _;
    let db = w.home.path().join("data/roocode.db");
    let url = format!("sqlite://{}?mode=ro", db.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_all(&mut conn)
        .await
        .unwrap();
    rows.iter()
        .map(|r| {
            (0..r.len())
                .map(|i| {
                    r.try_get::<Option<String>, _>(i)
                        .ok()
                        .flatten()
                        .or_else(|| {
                            r.try_get::<Option<i64>, _>(i)
                                .ok()
                                .flatten()
                                .map(|n| n.to_string())
                        })
                })
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_the_environment_never_reach_the_recorded_bodies() {
    let mut w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo canary-token-9f8e7d canary-custom-12345"}),
            ))
            .reply(Reply::text("I saw canary-token-9f8e7d.")),
    )
    .await;
    w.vars
        .push(("MY_SERVICE_TOKEN".into(), "canary-token-9f8e7d".into()));
    w.vars
        .push(("CUSTOM_THING".into(), "canary-custom-12345".into()));
    let dir = w.project_path().join(".roocode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "sandbox: {scrub_env: [CUSTOM_THING]}\n",
    )
    .unwrap();
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "my token is canary-token-9f8e7d and canary-custom-12345",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    flushed(&w, &out.session_id()).await;

    let bodies = query(
        &w,
        "SELECT model_call_id, request, response FROM trace_bodies ORDER BY created_at, rowid",
    )
    .await;
    assert_eq!(bodies.len(), 2, "one per model call");
    // Everything the recorder wrote: the requests' skeletons, their shared parts, the
    // answers.
    let parts = query(&w, "SELECT text FROM trace_parts").await;
    let all: String = bodies
        .iter()
        .chain(&parts)
        .flatten()
        .flatten()
        .cloned()
        .collect();
    for secret in ["canary-token-9f8e7d", "canary-custom-12345", "test-key"] {
        assert!(!all.contains(secret), "{secret} recorded: {all}");
    }
    assert!(all.contains("[scrubbed MY_SERVICE_TOKEN]"), "{all}");
    assert!(all.contains("[scrubbed CUSTOM_THING]"), "{all}");
    // `trace --body` puts a request back together: the one sent (JSON), with the
    // answer as assembled.
    let sid = out.session_id();
    let first = bodies[0][0].as_deref().unwrap();
    let shown = w.run(&["trace", &sid, "--body", &first[..20]]).await;
    assert_eq!(shown.code, 0, "{shown:?}");
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["model_call_id"], first);
    let messages = shown["request"]["messages"].as_array().unwrap();
    assert!(
        messages[0]
            .to_string()
            .contains("[scrubbed MY_SERVICE_TOKEN]"),
        "{messages:?}"
    );
    assert!(shown["request"]["tools"].is_array(), "{shown}");
    assert_eq!(shown["response"]["stop_reason"], "tool_use");
    let response: Value = serde_json::from_str(bodies[1][2].as_deref().unwrap()).unwrap();
    assert_eq!(response["stop_reason"], "end_turn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_model_call_records_its_iteration_first_token_and_parts() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Bash", json!({"command": "echo hi"})))
            .reply(Reply::text("Done.")),
    )
    .await;
    let out = w.run(&["send", "--mode", "bypassPermissions", "go"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    flushed(&w, &out.session_id()).await;
    let calls = query(
        &w,
        "SELECT iteration, ttft_ms, parts FROM model_calls ORDER BY created_at, rowid",
    )
    .await;
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0][0].as_deref(), Some("1"));
    assert_eq!(calls[1][0].as_deref(), Some("2"));
    assert!(
        calls.iter().all(|c| c[1].is_some()),
        "ttft recorded: {calls:?}"
    );
    let parts: Value = serde_json::from_str(calls[1][2].as_deref().unwrap()).unwrap();
    assert!(parts["system"]["chars"].as_u64().unwrap() > 100, "{parts}");
    assert!(parts["tools"]["tokens"].as_u64().unwrap() > 100, "{parts}");
    assert!(
        parts["tool_results"]["chars"].as_u64().unwrap() >= 2,
        "{parts}"
    );

    let tools = query(
        &w,
        "SELECT tool, decision, outcome, duration_ms, decided_by FROM tool_calls",
    )
    .await;
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0][0].as_deref(), Some("Bash"));
    assert_eq!(tools[0][1].as_deref(), Some("allow"));
    assert_eq!(tools[0][2].as_deref(), Some("ok"));
    let by: Value = serde_json::from_str(tools[0][4].as_deref().unwrap()).unwrap();
    assert_eq!(by["layer"], "mode", "{by}");
    assert!(
        by["why"].as_str().unwrap().contains("bypassPermissions"),
        "{by}"
    );
}
