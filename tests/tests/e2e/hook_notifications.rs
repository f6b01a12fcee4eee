//! `notification` hooks through the real binaries, in Claude Code's shape
//! (`hook_event_name: "Notification"`, `message`, `notification_type`):
//!
//! - an `AskUserQuestion` question waiting for the user fires `elicitation_dialog` with
//!   the question's text, before anyone answers it;
//! - a main agent whose turn ended fires `idle_prompt` once it has waited
//!   `notifications.idle_after_ms` with no client attached — after `roocode-cli send`
//!   ends and detaches;
//! - not while a client stays attached: checked after a definite later event (another
//!   session's idle notification, whose timer started after this one's would have),
//!   and then the attached client leaves and the notification comes.
//!
//! Every hook lives in the user's own config (`ROOCODE_HOME/config.yaml`, no approval
//! needed) and writes the event it reads on stdin to a file of its own in a directory of
//! the test's home (written aside, then renamed: a file is whole when it appears).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use roocode_protocol::api::SessionApiClient;
use roocode_tests::mock_llm::{Reply, Script, ScriptedReply, ToolCall};
use serde_json::{Value, json};

use crate::harness::{PATIENCE, World, last_results, rpc};

/// The user's own config with one `notification` hook for `matcher`, recording into
/// the returned directory; `extra` is more YAML (e.g. `notifications:`).
fn notification_hook(w: &World, matcher: &str, extra: &str) -> PathBuf {
    let dir = w.home.path().join("notified");
    std::fs::create_dir_all(&dir).expect("record directory");
    let script = w.home.path().join("notify.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nf='{}'/n-$$\ncat > \"$f.part\"\nmv \"$f.part\" \"$f.json\"\n",
            dir.display()
        ),
    )
    .expect("write hook");
    let yaml = format!(
        "{extra}hooks:\n  - event: notification\n    matcher: \"{matcher}\"\n    action: {{type: command, command: \"sh {}\"}}\n",
        script.display()
    );
    std::fs::write(w.home.path().join("config.yaml"), yaml).expect("write config");
    dir
}

/// The notifications recorded so far (none when no hook ran).
fn recorded(dir: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read a recorded event");
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
        })
        .collect()
}

/// Waits (bounded by [`PATIENCE`]) until a recorded notification satisfies `pred`.
async fn wait_for(dir: &Path, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(found) = recorded(dir).into_iter().find(&pred) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "no {what} in time; recorded: {:?}",
            recorded(dir)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn of_session<'a>(session: &'a str) -> impl Fn(&Value) -> bool + 'a {
    move |v: &Value| v["session_id"] == session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_waiting_for_the_user_fires_a_notification_with_its_text() {
    let questions = json!({"questions": [{
        "question": "Which database should I use?",
        "header": "Database",
        "options": [
            {"label": "SQLite", "description": "a file"},
            {"label": "PostgreSQL", "description": "a server"}
        ],
        "multiSelect": false
    }]});
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "AskUserQuestion",
                questions,
            )]))
            .reply(Reply::text("SQLite it is.")),
    )
    .await;
    let dir = notification_hook(&w, "elicitation_dialog", "");
    let first = w.run(&["send", "--no-wait", "set up a database"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    let mut watch = w.start(&["attach", &id, "--output", "stream-json"]);
    let q: Value = watch.until_event("question").await;

    // Nobody has answered: the notification came while the question waits.
    let note = wait_for(&dir, "question notification", of_session(&id)).await;
    assert_eq!(note["hook_event_name"], "Notification", "{note}");
    assert_eq!(note["notification_type"], "elicitation_dialog", "{note}");
    assert_eq!(
        note["message"], "RooCode has a question for you: Which database should I use?",
        "{note}"
    );
    assert!(note["cwd"].as_str().is_some(), "{note}");
    let pending = w.run(&["pending", "--json"]).await.json();
    assert_eq!(pending[0]["kind"], "question", "still waiting: {pending}");

    let answer = w
        .run(&["answer", q["request_id"].as_str().unwrap(), "1"])
        .await;
    assert_eq!(answer.code, 0, "{answer:?}");
    watch.until(|l| l.contains("\"turn_completed\"")).await;
    watch.signal(Signal::SIGINT);
    let results = last_results(&w.mock.requests()[1].body);
    assert!(
        results[0]
            .content
            .contains("\"Which database should I use?\" = \"SQLite\""),
        "the turn went on with the answer: {results:?}"
    );
    assert_eq!(recorded(&dir).len(), 1, "one question, one notification");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_left_idle_with_nobody_attached_fires_an_idle_notification() {
    let w = World::new(Script::new().reply(Reply::text("All done."))).await;
    let dir = notification_hook(&w, "idle_prompt", "notifications: {idle_after_ms: 200}\n");
    let out = w.run(&["send", "say done"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = out.session_id();
    // `send` has ended: its client detached, and the agent waits for the user.
    let note = wait_for(&dir, "idle notification", of_session(&id)).await;
    assert_eq!(note["hook_event_name"], "Notification", "{note}");
    assert_eq!(note["notification_type"], "idle_prompt", "{note}");
    assert_eq!(
        note["message"], "RooCode finished and is waiting for your input",
        "{note}"
    );
    assert_eq!(note["permission_mode"], "default", "{note}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_idle_notification_while_a_client_stays_attached() {
    let w = World::new(
        Script::new()
            .reply(ScriptedReply::from(Reply::text("First done.")).with_gate("first"))
            .reply(Reply::text("Second done.")),
    )
    .await;
    let dir = notification_hook(&w, "idle_prompt", "notifications: {idle_after_ms: 100}\n");
    let started = w.run(&["send", "--no-wait", "first task"]).await;
    assert_eq!(started.code, 0, "{started:?}");
    let watched = started.session_id();

    // A client attaches while the turn runs, and stays until its turn has ended.
    let client = rpc(&w).await;
    let mut sub = client
        .subscribe_events(watched.clone(), Some(0))
        .await
        .unwrap();
    w.mock.wait_for_gate_reached("first").await;
    w.mock.open_gate("first");
    let read = async {
        loop {
            match sub.next().await {
                Some(Ok(ev)) if ev.payload.kind() == "turn_completed" => break,
                Some(Ok(_)) => {}
                other => panic!("the stream ended: {other:?}"),
            }
        }
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .expect("the first turn ends");

    // A definite later event: another session, started after the watched one's turn
    // ended, is notified — its timer ran out after the watched one's would have.
    let other = w.run(&["send", "second task"]).await;
    assert_eq!(other.code, 0, "{other:?}");
    let other_id = other.session_id();
    assert_ne!(other_id, watched);
    wait_for(
        &dir,
        "the other session's notification",
        of_session(&other_id),
    )
    .await;
    let notes = recorded(&dir);
    assert!(
        !notes.iter().any(of_session(&watched)),
        "no idle notification while a client is attached: {notes:?}"
    );

    // The client leaves: now nobody watches, and the notification comes.
    drop(sub);
    drop(client);
    let note = wait_for(
        &dir,
        "the watched session's notification",
        of_session(&watched),
    )
    .await;
    assert_eq!(note["notification_type"], "idle_prompt", "{note}");
}
