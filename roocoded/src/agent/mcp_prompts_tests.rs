//! [`Engine::mcp_prompts`] and [`Engine::mcp_prompt_text`] against the tests' MCP
//! server (`mcp-fixture`) on stdio, configured in a temporary project.

use std::collections::BTreeMap;
use std::path::Path;

use roocode_protocol::session::ClientEnv;

use crate::agent::Engine;
use crate::mcp::test_support::fixture_binary;
use crate::store::{NewSession, SessionRow, Store};

/// An engine whose store has a session in a project configuring the fixture as `fx`
/// and a disabled server `off`.
async fn engine() -> (tempfile::TempDir, Engine, SessionRow) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home").display().to_string();
    let paths = roocode_protocol::paths::Paths::resolve(|name| {
        (name == "ROOCODE_HOME").then(|| home.clone())
    })
    .unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join(".roocode")).unwrap();
    std::fs::write(
        project.join(".roocode/config.local.yaml"),
        format!(
            "mcp_servers:\n  fx:\n    command: {:?}\n  off:\n    command: /nonexistent/x\n    enabled: false\n",
            fixture_binary().display().to_string()
        ),
    )
    .unwrap();
    let root = project.canonicalize().unwrap().display().to_string();
    let store = Store::open(&paths.database).await.unwrap();
    let row = store
        .insert_session(&NewSession {
            id: "s-prompts".into(),
            parent_session_id: None,
            kind: roocode_protocol::session::SessionKind::Main,
            title: "t".into(),
            cwd: root.clone(),
            root,
            model: "anthropic/m".into(),
            mode: roocode_protocol::Mode::Default,
        })
        .await
        .unwrap();
    (dir, Engine::new(store, paths), row)
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn a_session_s_prompts_are_listed_and_filled_in() {
    let (_dir, engine, row) = engine().await;
    let env = ClientEnv::default();
    let prompts = engine.mcp_prompts(&row, &env).await;
    let names: Vec<String> = prompts.iter().map(|p| p.command_name()).collect();
    assert_eq!(
        names,
        [
            "mcp__fx__greet",
            "mcp__fx__review_readme",
            "mcp__fx__more_prompts"
        ]
    );
    let greet = &prompts[0];
    assert_eq!(
        (greet.server.as_str(), greet.name.as_str()),
        ("fx", "greet")
    );
    assert_eq!(greet.usage(), "/mcp__fx__greet <name> [style]");

    let mapped = crate::mcp::map_arguments(&greet.arguments, "Bob formal").unwrap();
    let text = engine
        .mcp_prompt_text(&row, &env, "fx", "greet", mapped)
        .await
        .unwrap();
    assert_eq!(text, "Say hello to Bob in a formal way.");
    let mapped = greet.map_arguments("'Ann Lee'").unwrap();
    let text = engine
        .mcp_prompt_text(&row, &env, "fx", "greet", mapped)
        .await
        .unwrap();
    assert_eq!(text, "Say hello to Ann Lee in a plain way.");
}

#[tokio::test]
async fn what_cannot_be_had_says_why() {
    let (_dir, engine, row) = engine().await;
    let env = ClientEnv::default();
    let err = |server: &'static str, prompt: &'static str, a: BTreeMap<String, String>| {
        let (engine, row, env) = (&engine, &row, &env);
        async move {
            engine
                .mcp_prompt_text(row, env, server, prompt, a)
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let e = err("nope", "greet", args(&[])).await;
    assert!(
        e.contains("no MCP server `nope`") && e.contains("fx, off"),
        "{e}"
    );
    let e = err("off", "greet", args(&[])).await;
    assert!(
        e.starts_with("the MCP server `off` is not running: it is disabled"),
        "{e}"
    );
    let e = err("fx", "nope", args(&[])).await;
    assert_eq!(
        e,
        "the MCP server `fx` has no prompt `nope`; its prompts: greet, review_readme, more_prompts"
    );
    let e = err("fx", "greet", args(&[("style", "odd")])).await;
    assert!(
        e.starts_with("the MCP server `fx` could not give the prompt `greet`:")
            && e.contains("the argument `name` is required"),
        "{e}"
    );
    // A project that cannot be read lists no prompts (and says why in the log).
    let mut elsewhere = row.clone();
    elsewhere.root = Path::new(&row.root).join("missing").display().to_string();
    assert!(engine.mcp_prompts(&elsewhere, &env).await.is_empty());
}
