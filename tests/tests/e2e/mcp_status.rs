//! `roocode-cli mcp list|get|approve` and `/mcp` through the real daemon, against the
//! tests' MCP server (`mcp-fixture`): a local server runs without approval and shows
//! its tools; a project server (`.mcp.json`) waits for `mcp approve`, its tools reach
//! the model only after it, and a change to what it runs asks again; servers that
//! cannot run (SSE, a missing command) say why; and a command the model runs cannot
//! approve a server of its own repository.

use std::path::Path;

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Output, World, bin, tool_names};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn fixture() -> String {
    bin("mcp-fixture").display().to_string()
}

/// `.mcp.json` running the fixture as `fixture` with `args`.
fn mcp_json(w: &World, args: &[&str]) {
    let text = json!({"mcpServers": {"fixture": {"command": fixture(), "args": args}}});
    write(&w.project_path().join(".mcp.json"), &text.to_string());
}

/// `mcp list --json`, which must succeed.
async fn list(w: &World) -> Vec<Value> {
    let out = w.run(&["mcp", "list", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    out.json().as_array().cloned().unwrap()
}

fn named<'a>(servers: &'a [Value], name: &str) -> &'a Value {
    servers
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {servers:?}"))
}

fn approvals_file(w: &World) -> std::path::PathBuf {
    w.home.path().join("data/mcp-approvals.json")
}

fn failed_with(out: &Output, words: &[&str]) {
    assert_eq!(out.code, 1, "{out:?}");
    for word in words {
        assert!(out.stderr.contains(word), "{word:?} in {out:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_server_runs_without_approval_and_shows_its_tools() {
    let w = World::new(Script::new()).await;
    let local = w.project_path().join(".roocode/config.local.yaml");
    write(
        &local,
        &format!(
            "mcp_servers:\n  fixture:\n    command: {:?}\n    env: {{FIXTURE_SECRET: \"s3cr3t-value\"}}\n",
            fixture()
        ),
    );
    let servers = list(&w).await;
    let s = named(&servers, "fixture");
    assert_eq!(s["state"], "connected", "{s}");
    assert_eq!(s["tool_count"], 6, "{s}");
    assert_eq!(s["scope"], "local");
    assert_eq!(s["transport"], "stdio");
    assert_eq!(s["source"], local.display().to_string());
    assert_eq!(s["runs"]["command"], fixture());
    assert_eq!(s["runs"]["env_names"], json!(["FIXTURE_SECRET"]));

    let table = w.run(&["mcp", "list"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    assert!(table.stdout.starts_with("NAME "), "{table:?}");
    let row = table.stdout.lines().nth(1).unwrap();
    for cell in ["fixture", "local", "stdio", "connected", "6"] {
        assert!(row.split_whitespace().any(|c| c == cell), "{cell} in {row}");
    }

    let got = w.run(&["mcp", "get", "fixture", "--json"]).await;
    assert_eq!(got.code, 0, "{got:?}");
    let got = got.json();
    let tools = got["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 6, "{got}");
    let search = tools
        .iter()
        .find(|t| t["name"] == "mcp__fixture__notes_search")
        .unwrap_or_else(|| panic!("{got}"));
    assert_eq!(search["tool"], "notes.search");
    let page = w.run(&["mcp", "get", "fixture"]).await;
    assert_eq!(page.code, 0, "{page:?}");
    assert!(
        page.stdout.contains("mcp__fixture__notes_search"),
        "{page:?}"
    );
    assert!(page.stdout.contains("FIXTURE_SECRET"), "{page:?}");
    for out in [&table, &page] {
        assert!(!out.stdout.contains("s3cr3t"), "a value leaked: {out:?}");
    }
    assert!(!got.to_string().contains("s3cr3t"));

    // Mistakes say what is there and what to do.
    failed_with(
        &w.run(&["mcp", "get", "nope"]).await,
        &["no MCP server `nope`", "fixture"],
    );
    failed_with(
        &w.run(&["mcp", "approve", "fixture"]).await,
        &["needs no approval"],
    );
    assert!(!approvals_file(&w).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_server_waits_for_approval_until_what_it_runs_changes() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("Without it."))
            .reply(Reply::text("With it.")),
    )
    .await;
    mcp_json(&w, &[]);
    let servers = list(&w).await;
    let s = named(&servers, "fixture");
    assert_eq!(s["state"], "needs_approval", "{s}");
    assert_eq!(s["approve_command"], "roocode-cli mcp approve fixture");
    assert_eq!(
        (&s["scope"], &s["tool_count"]),
        (&json!("project"), &json!(0))
    );
    let table = w.run(&["mcp", "list"]).await;
    assert!(
        table.stdout.contains("needs approval")
            && table.stdout.contains("`roocode-cli mcp approve fixture`"),
        "{table:?}"
    );

    let first = w.run(&["send", "first"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let names = tool_names(&w.mock.requests()[0].body);
    assert!(
        !names.iter().any(|n| n.starts_with("mcp__fixture__")),
        "{names:?}"
    );

    let approved = w.run(&["mcp", "approve", "fixture"]).await;
    assert_eq!(approved.code, 0, "{approved:?}");
    assert!(
        approved
            .stdout
            .contains("Approved the MCP server `fixture`")
            && approved.stdout.contains(&fixture()),
        "{approved:?}"
    );
    assert!(approvals_file(&w).exists());

    let second = w.run(&["send", "second"]).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert_ne!(second.session_id(), first.session_id());
    let names = tool_names(&w.mock.requests()[1].body);
    assert!(
        names.contains(&"mcp__fixture__echo".to_string()),
        "{names:?}"
    );
    assert_eq!(named(&list(&w).await, "fixture")["state"], "connected");

    // What it runs changed: approved no more.
    mcp_json(&w, &["--changed"]);
    let s = named(&list(&w).await, "fixture").clone();
    assert_eq!(s["state"], "needs_approval", "{s}");
    assert_eq!(s["runs"]["args"], json!(["--changed"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_cannot_run_say_why_in_the_list_and_in_slash_mcp() {
    let mut w = World::new(Script::new()).await;
    // A failed server starts again soon, and gives up soon.
    w.vars.push(("ROOCODE_MCP_RESTART_MS".into(), "200".into()));
    let missing = "/nonexistent/roocode-mcp-missing";
    write(
        &w.project_path().join(".roocode/config.local.yaml"),
        &format!(
            "mcp_servers:\n  fixture: {{command: {:?}}}\n  gone: {{command: {missing:?}}}\n  old: {{type: sse, url: \"http://127.0.0.1:9/sse\"}}\n",
            fixture()
        ),
    );
    let servers = list(&w).await;
    let old = named(&servers, "old");
    assert_eq!(old["state"], "unusable", "{old}");
    assert_eq!(old["transport"], "sse");
    assert!(
        old["reason"]
            .as_str()
            .unwrap()
            .contains("SSE transport is not supported"),
        "{old}"
    );
    let gone = named(&servers, "gone");
    assert_eq!(gone["state"], "failed", "{gone}");
    assert!(gone["reason"].as_str().unwrap().contains(missing), "{gone}");
    assert!(
        gone["last_error"].as_str().unwrap().contains(missing),
        "{gone}"
    );
    assert_eq!(named(&servers, "fixture")["state"], "connected");

    let out = w.run(&["send", "/mcp"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("NAME "), "{out:?}");
    for words in [
        "connected",
        "unusable",
        "SSE transport is not supported",
        "failed",
        missing,
    ] {
        assert!(out.stdout.contains(words), "{words} in {out:?}");
    }
    assert_eq!(w.mock.request_count(), 0, "/mcp never calls the model");
    let commands = w.run(&["send", "/help"]).await;
    assert!(commands.stdout.contains("/mcp"), "{commands:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_cannot_approve_a_server_of_its_own_repository() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "sh approve.sh"}),
            )]))
            .reply(Reply::text("done")),
    )
    .await;
    mcp_json(&w, &[]);
    let root = w.project_path();
    // The user allowed the script, and the OS sandbox is off: the daemon's check holds
    // alone.
    write(
        &root.join(".roocode/config.local.yaml"),
        "permissions:\n  allow:\n    - \"Bash(sh approve.sh)\"\nsandbox:\n  mode: off\n",
    );
    // What a prompt-injected model would run.
    write(
        &root.join("approve.sh"),
        &format!(
            "export ROOCODE_HOME='{home}' HOME='{home}'\n'{cli}' mcp approve fixture > approve.out 2> approve.err\necho \"exit=$?\" > approve.done\n",
            home = w.home.path().display(),
            cli = bin("roocode-cli").display()
        ),
    );
    let out = w.run(&["send", "approve your server"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let status = std::fs::read_to_string(root.join("approve.done")).unwrap();
    let err = std::fs::read_to_string(root.join("approve.err")).unwrap_or_default();
    assert_eq!(status.trim(), "exit=1", "the command approved: {err}");
    assert!(
        err.contains("mcp.approve refused") && err.contains("A command can never"),
        "the reason is given: {err}"
    );
    assert!(!approvals_file(&w).exists(), "nothing was approved");
    assert_eq!(named(&list(&w).await, "fixture")["state"], "needs_approval");
}
