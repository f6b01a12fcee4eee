//! Offline replay end to end (issue 16, item 4): a session recorded against the mock
//! model — file and shell tools, a call denied by a rule, a retried model call, a
//! background sub-agent, a compaction — is run again by `roocode-cli replay` with no key
//! and no model (the mock gets no request), in a scratch copy of the project as it was
//! when the session started, and reproduces the recording with no divergence. A file
//! changed in a prepared copy makes it diverge where it is read; a session whose bodies
//! were not kept is refused with what to change.

use std::path::{Path, PathBuf};

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{Output, World, first_user};

/// `roocode-cli replay args…` with no key and no model address in the environment.
async fn replay(w: &World, args: &[&str]) -> Output {
    let mut cmd = w.cli(&[&["replay"], args].concat());
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL");
    crate::harness::finish(cmd.spawn().expect("roocode-cli starts")).await
}

/// Removes a replay's scratch copy (made in the system's temporary directory) when the
/// test ends, passed or not.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The scratch directory a replay names on stderr.
fn scratch_dir(out: &Output) -> PathBuf {
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("replay of "))
        .unwrap_or_else(|| panic!("no `replay of` line: {out:?}"));
    let rest = line.split(" in ").nth(1).unwrap();
    PathBuf::from(rest.split(" — ").next().unwrap())
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A session with a read, a write, a shell change, a denied `rm`, a glob, a retried
/// model call and a background sub-agent that reports back.
async fn recorded_session() -> (World, String) {
    let script = Script::new()
        .route(
            first_user("BG-TASK"),
            [
                Reply::tool_calls(vec![ToolCall::new("Grep", json!({"pattern": "one"}))]),
                Reply::text("a.txt says one."),
            ],
        )
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Read",
            json!({"file_path": "a.txt"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Write",
            json!({"file_path": "notes/new.txt", "content": "hello\n"}),
        )]))
        .reply(Reply::rate_limited("0"))
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Bash",
            json!({"command": "echo two >> a.txt && cat a.txt && pwd"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Bash",
            json!({"command": "rm a.txt"}),
        )]))
        .reply(Reply::tool_calls(vec![
            ToolCall::new("Glob", json!({"pattern": "**/*.txt"})),
            ToolCall::new(
                "Agent",
                json!({"subagent_type": "general-purpose", "run_in_background": true,
                       "description": "check a", "prompt": "BG-TASK: what does a.txt say?"}),
            ),
        ]))
        .reply(Reply::text("Started a helper."))
        .reply(Reply::text("The helper says a.txt says one."))
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Bash",
            json!({"command": "cat notes/new.txt"}),
        )]))
        .reply(Reply::text("Again done."))
        .rule(
            "context compactor",
            Reply::text("## Goal\nChange things; a helper checks a.txt."),
        );
    let w = World::new(script).await;
    let p = w.project_path();
    write(&p, "a.txt", "one\n");
    write(
        &p,
        ".roocode/config.yaml",
        // A small window: the second message starts with a compaction.
        "permissions:\n  deny: [\"Bash(rm:*)\"]\ncontext:\n  window_tokens: 6000\n  compact_threshold: 0.5\n",
    );
    let out = w
        .run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--wait-agents",
            "change things",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    let out = w
        .run(&[
            "send",
            "--session",
            &id,
            "--mode",
            "bypassPermissions",
            "and again",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(w.mock.remaining(), 0, "the whole script was used");
    let compactions = w
        .mock
        .requests()
        .iter()
        .filter(|r| {
            roocode_tests::mock_llm::script::system_text(&r.body).contains("context compactor")
        })
        .count();
    assert!(compactions >= 1, "the window made the session compact");
    (w, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_session_replays_offline_with_no_divergence() {
    let (w, id) = recorded_session().await;
    let asked = w.mock.request_count();
    // The project moves on after the session: the replay starts from its snapshot.
    write(&w.project_path(), "a.txt", "edited later\n");

    let out = replay(&w, &[&id]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(w.mock.request_count(), asked, "the replay asked no model");
    assert!(
        out.stdout.contains("no divergence") && !out.stdout.contains("diverged"),
        "{out:?}"
    );
    for seen in [
        "Again done.",
        "The helper says a.txt says one.",
        "Permission denied",
    ] {
        assert!(out.stdout.contains(seen), "{seen}: {out:?}");
    }
    assert!(
        out.stderr.contains("its first turn's snapshot"),
        "{}",
        out.stderr
    );
    let dir = scratch_dir(&out);
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes/new.txt")).unwrap(),
        "hello\n"
    );
    // The project itself was not touched by the replay.
    assert_eq!(
        std::fs::read_to_string(w.project_path().join("a.txt")).unwrap(),
        "edited later\n"
    );

    // The replay is a session of its own, traced like any other: every recorded
    // answer was served, the helper replayed under it, the rm denied as recorded.
    let replay_id = out
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("session: "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();
    let trace = w.run(&["trace", &replay_id, "--json"]).await;
    assert_eq!(trace.code, 0, "{trace:?}");
    let trace: Value = serde_json::from_str(&trace.stdout).unwrap();
    let text = trace.to_string();
    assert!(text.contains("\"sub_agent\""), "{text}");
    let finished = w
        .run(&[
            "attach",
            &replay_id,
            "--output",
            "stream-json",
            "--until-idle",
        ])
        .await;
    let end = finished
        .json_lines()
        .into_iter()
        .find(|e| e["type"] == "replay_finished")
        .expect("a replay_finished event");
    assert_eq!(end["divergences"], 0, "{end}");
    assert_eq!(end["model_calls"], end["recorded_model_calls"], "{end}");
    assert_eq!(end["recorded_session_id"], id.as_str());
    assert!(end["tool_calls"].as_u64().unwrap() >= 7, "{end}");
}

/// Every tool call, step and agent of a trace's agent tree, depth first.
fn walk<'a>(
    agent: &'a Value,
    tools: &mut Vec<&'a Value>,
    steps: &mut Vec<&'a Value>,
    agents: &mut Vec<&'a Value>,
) {
    agents.push(agent);
    for turn in agent["turns"].as_array().into_iter().flatten() {
        for it in turn["iterations"].as_array().into_iter().flatten() {
            tools.extend(it["tools"].as_array().into_iter().flatten());
        }
        steps.extend(turn["steps"].as_array().into_iter().flatten());
        for child in turn["agents"].as_array().into_iter().flatten() {
            walk(child, tools, steps, agents);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trace_of_that_session_lists_each_step_with_who_decided() {
    let (w, id) = recorded_session().await;
    let out = w.run(&["trace", &id, "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let trace: Value = serde_json::from_str(&out.stdout).unwrap();
    let (mut tools, mut steps, mut agents) = (Vec::new(), Vec::new(), Vec::new());
    walk(&trace["agent"], &mut tools, &mut steps, &mut agents);

    // The denied call: the rule, its file and line.
    let rm = tools
        .iter()
        .find(|t| t["input"].as_str().unwrap_or("").contains("rm a.txt"))
        .expect("the rm call");
    assert_eq!(
        (&rm["decision"], &rm["layer"], &rm["outcome"]),
        (&json!("deny"), &json!("rule"), &json!("denied"))
    );
    assert_eq!(rm["decided_by"]["rule"], "Bash(rm:*)");
    assert!(
        rm["decided_by"]["origin"]["file"]
            .as_str()
            .unwrap()
            .ends_with(".roocode/config.yaml"),
        "{rm}"
    );
    assert_eq!(rm["decided_by"]["origin"]["line"], 2);
    // The others ran, allowed by the mode, each with its duration.
    for name in ["Read", "Write", "Bash", "Glob", "Agent", "Grep"] {
        let t = tools
            .iter()
            .find(|t| t["tool"] == name && t["outcome"] == "ok")
            .unwrap_or_else(|| panic!("no {name} that ran: {tools:?}"));
        assert_eq!(
            (&t["decision"], &t["layer"]),
            (&json!("allow"), &json!("mode")),
            "{t}"
        );
        assert!(t["duration_ms"].is_u64(), "{t}");
    }
    // The retry, and the compaction with what it cut.
    let retry = steps
        .iter()
        .find(|s| s["kind"] == "recovery")
        .expect("the retry");
    assert_eq!(retry["detail"]["category"], "rate_limited", "{retry}");
    assert_eq!(retry["detail"]["strategy"], "retry", "{retry}");
    let compaction = steps
        .iter()
        .find(|s| s["kind"] == "compaction")
        .expect("a compaction");
    assert!(
        compaction["detail"]["summarized"].as_u64().unwrap() > 0,
        "{compaction}"
    );
    assert_eq!(compaction["detail"]["how"], "summary", "{compaction}");
    // The failed call is an iteration with its error; the others with tokens.
    let iterations: Vec<&Value> = trace["agent"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["iterations"].as_array().unwrap())
        .collect();
    assert!(
        iterations.iter().any(|i| i["error"].is_string()),
        "{iterations:?}"
    );
    assert!(
        iterations
            .iter()
            .filter(|i| i["error"].is_null())
            .all(|i| i["input_tokens"].as_u64() > Some(0) && i["has_bodies"] == true),
        "{iterations:?}"
    );
    // The background helper, under the turn that started it.
    let helper = agents
        .iter()
        .find(|a| a["kind"] == "sub_agent")
        .expect("the helper");
    assert_eq!(helper["agent_type"], "general-purpose");
    assert!(
        trace["agent"]["turns"][0]["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["agent_id"] == helper["agent_id"])
    );

    // And why the rm was denied, in one paragraph.
    let call = rm["call_id"].as_str().unwrap();
    let why = w.run(&["trace", &id, "--why", call]).await;
    assert_eq!(why.code, 0, "{why:?}");
    assert!(
        why.stdout.contains("Bash(rm:*)") && why.stdout.contains(".roocode/config.yaml"),
        "{}",
        why.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_changed_in_the_prepared_copy_shows_where_the_replay_diverges() {
    let (w, id) = recorded_session().await;
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("copy");
    let into_s = into.to_str().unwrap();
    let out = replay(&w, &[&id, "--into", into_s, "--prepare"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout.trim(),
        into.canonicalize()
            .unwrap_or(into.clone())
            .to_str()
            .unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(into.join("a.txt")).unwrap(),
        "one\n"
    );
    std::fs::write(into.join("a.txt"), "changed\n").unwrap();

    let out = replay(&w, &[&id, "--into", into_s, "--output", "stream-json"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    let events = out.json_lines();
    let diverged: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "replay_divergence")
        .collect();
    let read = diverged
        .iter()
        .find(|e| e["tool"] == "Read")
        .unwrap_or_else(|| panic!("no divergence at the Read: {diverged:?}"));
    assert_eq!(read["kind"], "tool_result");
    assert!(read["expected"].as_str().unwrap().contains("one"), "{read}");
    assert!(
        read["actual"].as_str().unwrap().contains("changed"),
        "{read}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "replay_finished" && e["divergences"].as_u64() >= Some(1)),
        "{events:?}"
    );

    // A non-empty directory no replay prepared is refused: a replay runs commands.
    let mine = tempfile::tempdir().unwrap();
    std::fs::write(mine.path().join("keep.txt"), "mine").unwrap();
    let out = replay(&w, &[&id, "--into", mine.path().to_str().unwrap()]).await;
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("not empty"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(mine.path().join("keep.txt")).unwrap(),
        "mine"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_bodies_were_not_kept_is_refused() {
    let w = World::new(Script::new().reply(Reply::text("Hi."))).await;
    write(
        &w.project_path(),
        ".roocode/config.yaml",
        "trace: {bodies: false}\n",
    );
    let out = w.run(&["send", "hello"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let out = replay(&w, &[&out.session_id()]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("lacks the bodies") && out.stderr.contains("trace.bodies"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compaction_replays_from_its_recorded_summary() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("One."))
            .reply(Reply::text("Two."))
            .reply(Reply::text("Three, after compaction."))
            .rule("context compactor", Reply::text("## Goal\nAuto summary.")),
    )
    .await;
    write(
        &w.project_path(),
        ".roocode/config.yaml",
        "context:\n  window_tokens: 4000\n  compact_threshold: 0.5\n",
    );
    let first = w.run(&["send", "one"]).await;
    let id = first.session_id();
    for text in ["two", "three"] {
        let out = w.run(&["send", "--session", &id, text]).await;
        assert_eq!(out.code, 0, "{out:?}");
    }
    let asked = w.mock.request_count();
    let out = replay(&w, &[&id, "--output", "stream-json"]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(w.mock.request_count(), asked);
    let events = out.json_lines();
    assert!(
        events.iter().any(|e| e["type"] == "compaction"),
        "{events:?}"
    );
    let end = events
        .iter()
        .find(|e| e["type"] == "replay_finished")
        .unwrap();
    assert_eq!(end["divergences"], 0, "{end}");
    assert_eq!(end["model_calls"], end["recorded_model_calls"], "{end}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_writes_nowhere_but_its_scratch_copy() {
    let other = tempfile::tempdir().unwrap();
    let target = other.path().canonicalize().unwrap().join("out.txt");
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Write",
                json!({"file_path": target.to_str().unwrap(), "content": "written\n"}),
            ))
            .reply(Reply::text("Wrote it next door.")),
    )
    .await;
    let dirs = format!(
        "permissions:\n  additional_directories: [\"{}\"]\n",
        other.path().canonicalize().unwrap().display()
    );
    write(&w.project_path(), ".roocode/config.yaml", &dirs);
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "write next door"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(target.exists());
    std::fs::remove_file(&target).unwrap();

    // The recorded write reached an additional directory; the replay's may not.
    let out = replay(&w, &[&out.session_id(), "--output", "stream-json"]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!target.exists(), "the replay wrote outside its copy");
    let events = out.json_lines();
    assert!(
        events.iter().any(|e| e["type"] == "replay_divergence"
            && e["kind"] == "denied"
            && e["tool"] == "Write"),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_page_is_read_from_the_recording_not_fetched_again() {
    let server = roocode_tests::recorder::Recorder::serving("The docs say: use v2.")
        .await
        .unwrap();
    let url = format!("http://127.0.0.1:{}/docs", server.port());
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "WebFetch",
                json!({ "url": url }),
            )]))
            .reply(Reply::text("The docs say v2.")),
    )
    .await;
    write(
        &w.project_path(),
        ".roocode/config.yaml",
        "permissions:\n  allow: [\"WebFetch(domain:127.0.0.1)\"]\n",
    );
    let out = w.run(&["send", "read the docs"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let fetched = server.seen().len();
    assert_eq!(fetched, 1, "{:?}", server.seen());

    let out = replay(&w, &[&out.session_id(), "--output", "stream-json"]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        server.seen().len(),
        fetched,
        "the replay fetched the page again"
    );
    let events = out.json_lines();
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .expect("the WebFetch result");
    assert!(
        result["output"].as_str().unwrap().contains("use v2"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_command_has_no_network() {
    let server = roocode_tests::recorder::Recorder::serving("pong")
        .await
        .unwrap();
    let command = format!(
        "printf 'GET /ping HTTP/1.0\\r\\n\\r\\n' > /dev/tcp/127.0.0.1/{} && echo sent",
        server.port()
    );
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Bash", json!({ "command": command })))
            .reply(Reply::text("Pinged.")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "ping the server"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let pinged = server.seen().len();
    assert_eq!(pinged, 1, "the recorded command reached the server");

    let out = replay(&w, &[&out.session_id(), "--output", "stream-json"]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        server.seen().len(),
        pinged,
        "the replay reached the network"
    );
    assert!(
        out.json_lines()
            .iter()
            .any(|e| e["type"] == "replay_divergence" && e["tool"] == "Bash"),
        "{out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_the_user_once_let_out_of_the_sandbox_stays_in_it_in_a_replay() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("outside.txt");
    let command = format!("echo ok > '{}'", target.display());
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": command, "dangerouslyDisableSandbox": true}),
            )]))
            .reply(Reply::text("Written.")),
    )
    .await;
    let first = w
        .run(&[
            "send",
            "--no-wait",
            "--mode",
            "bypassPermissions",
            "write it",
        ])
        .await;
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let request: Value = watch.until_event("permission_request").await;
    let req = request["request_id"].as_str().unwrap().to_string();
    assert_eq!(w.run(&["approve", &req]).await.code, 0);
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ok\n");
    std::fs::remove_file(&target).unwrap();

    let out = replay(&w, &[&id, "--output", "stream-json"]).await;
    let _copy = Cleanup(scratch_dir(&out));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        !target.exists(),
        "the replay ran the command outside the sandbox"
    );
    let denied = out
        .json_lines()
        .into_iter()
        .find(|e| e["type"] == "replay_divergence" && e["kind"] == "denied")
        .unwrap_or_else(|| panic!("no denied divergence: {out:?}"));
    assert!(
        denied["message"]
            .as_str()
            .unwrap()
            .contains("outside the OS sandbox"),
        "{denied}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_replay_s_session_ends_the_replay() {
    // The recorded command waits for a file that was there when it was recorded and
    // is not when it is replayed: the replay hangs there until cancelled.
    let flags = tempfile::tempdir().unwrap();
    let go = flags.path().join("go");
    std::fs::write(&go, "").unwrap();
    let command = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; echo went",
        go.display()
    );
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call("Bash", json!({ "command": command })))
            .reply(Reply::text("Went."))
            .reply(Reply::text("Second answer.")),
    )
    .await;
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "wait for go"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    let out = w
        .run(&[
            "send",
            "--session",
            &id,
            "--mode",
            "bypassPermissions",
            "second",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    std::fs::remove_file(&go).unwrap();

    let mut cmd = w.cli(&["replay", &id, "--output", "stream-json"]);
    cmd.env_remove("ANTHROPIC_API_KEY");
    let child = cmd.spawn().unwrap();
    let mut running = crate::harness::Running::from_child(child);
    let line = running.until_stderr(|l| l.starts_with("session: ")).await;
    let replay_id = line["session: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    running.until_event("tool_call").await;
    assert_eq!(w.run(&["cancel", &replay_id]).await.code, 0);
    let done = running.finish().await;
    let _copy = Cleanup(scratch_dir(&done));
    assert_eq!(done.code, 1, "{done:?}");
    let events = done.json_lines();
    let end = events
        .iter()
        .find(|e| e["type"] == "replay_finished")
        .unwrap_or_else(|| panic!("{done:?}"));
    assert!(
        end["stopped"].as_str().unwrap().contains("cancelled"),
        "{end}"
    );
    // The second recorded message was never sent.
    let sent = events
        .iter()
        .filter(|e| e["type"] == "user_message")
        .count();
    assert_eq!(sent, 1, "{events:?}");
}
