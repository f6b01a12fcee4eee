//! The context a session keeps in memory between turns (`SessionRuntime::context`):
//! turns reuse it instead of reloading the store, and every rewrite of the stored
//! context (`/clear`, `/compact`, a rewrite from outside followed by
//! `forget_cached_context`) reaches the next model call. Runs the engine in-process
//! against a scripted Anthropic endpoint.

use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams, SendParams};
use serde_json::json;

use super::{AgentError, Engine};
use crate::llm::test_server::{Reply, TestServer};
use crate::store::Store;

/// One session of an in-process engine whose model is the scripted server.
struct Harness {
    _dir: tempfile::TempDir,
    engine: Arc<Engine>,
    server: TestServer,
    env: ClientEnv,
    id: String,
}

impl Harness {
    async fn new(replies: Vec<Reply>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project: PathBuf = dir.path().join("project");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        // An instruction file: its reminder rides in the first user message.
        std::fs::write(project.join("ROOCODE.md"), "Answer tersely.\n").unwrap();
        let paths =
            Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
                .unwrap();
        let store = Store::open(&paths.database).await.unwrap();
        let engine = Arc::new(Engine::new(store, paths));
        let server = TestServer::start(replies).await;
        let env = ClientEnv {
            vars: [
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", server.url.as_str()),
                ("ROOCODE_MODEL", "anthropic/claude-sonnet-4-5"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        };
        let info = engine
            .create(CreateParams {
                cwd: project.display().to_string(),
                env: env.clone(),
                ..CreateParams::default()
            })
            .await
            .unwrap();
        Harness {
            _dir: dir,
            engine,
            server,
            env,
            id: info.id,
        }
    }

    /// Sends `text` and waits for the turns it starts to end.
    async fn send(&self, text: &str) {
        let rt = self.engine.runtimes.get(&self.id).unwrap();
        let mut ended = pin!(rt.turn_ended.notified());
        ended.as_mut().enable();
        self.engine
            .send(SendParams {
                session_id: self.id.clone(),
                text: text.to_string(),
                env: self.env.clone(),
                model: None,
                mode: None,
            })
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(10), ended)
            .await
            .expect("the turn ends");
    }

    /// The texts of the messages of the `n`th model request, one string per message.
    fn sent(&self, n: usize) -> Vec<String> {
        let body = self.server.requests()[n].json();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect()
    }

    /// Runs a slash command as `session.command` does.
    async fn command(&self, line: &str) -> Result<String, AgentError> {
        let row = self.engine.resolve(&self.id).await?;
        let env = self.engine.client_env(&self.id).await;
        crate::commands::run(&self.engine, &row, line, env)
            .await
            .map(|out| out.output)
    }

    async fn cached_len(&self) -> Option<usize> {
        let rt = self.engine.runtimes.get(&self.id).unwrap();
        let cached = rt.context.lock().await;
        cached.as_ref().map(|c| c.len())
    }
}

fn without_reminder(texts: Vec<String>) -> Vec<String> {
    texts
        .into_iter()
        .map(|t| match t.split_once("</system-reminder>|") {
            Some((reminder, rest)) => {
                assert!(reminder.contains("Answer tersely."), "{reminder}");
                rest.to_string()
            }
            None => t,
        })
        .map(without_skill_listing)
        .collect()
}

/// The text without the skill listing a session's first turn (and the first after a
/// clear or a compaction) adds.
fn without_skill_listing(text: String) -> String {
    const START: &str = "|<system-reminder>\nThe following skills are available";
    let Some(at) = text.find(START) else {
        return text;
    };
    let end = text[at..]
        .find("</system-reminder>")
        .map_or(text.len(), |e| at + e + "</system-reminder>".len());
    format!("{}{}", &text[..at], &text[end..])
}

#[tokio::test]
async fn turns_reuse_the_cached_context_until_it_is_forgotten() {
    let h = Harness::new(vec![
        Reply::anthropic_text("A"),
        Reply::anthropic_text("B"),
        Reply::anthropic_text("C"),
    ])
    .await;
    h.send("one").await;
    assert_eq!(h.cached_len().await, Some(2));
    // A rewrite behind the agent's back (as long, so the turn can still append) is
    // not seen: the turn did not reload the store. (This is why a rewrite must forget
    // the cached copy.)
    let behind_its_back = [
        Message::user_text("rewritten"),
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text("X")],
        },
    ];
    h.engine
        .store()
        .replace_context(&h.id, &behind_its_back)
        .await
        .unwrap();
    h.send("two").await;
    assert_eq!(without_reminder(h.sent(1)), ["one", "A", "two"]);

    let rewritten = [Message::user_text("rewritten")];
    h.engine
        .store()
        .replace_context(&h.id, &rewritten)
        .await
        .unwrap();
    h.engine.forget_cached_context(&h.id).await;
    assert_eq!(h.cached_len().await, None);
    h.send("three").await;
    assert_eq!(without_reminder(h.sent(2)), ["rewritten|three"]);
    assert_eq!(h.cached_len().await, Some(2));
    assert_eq!(
        h.engine.store().context(&h.id).await.unwrap().len(),
        2,
        "the cache and the store agree"
    );
}

#[tokio::test]
async fn clear_and_compact_reach_the_next_model_call() {
    let h = Harness::new(vec![
        Reply::anthropic_text("A"),
        Reply::anthropic_text("B"),
        Reply::anthropic_text("C"),
        Reply::anthropic_text("D"),
        Reply::anthropic_text("## Goal\nTHE SUMMARY"),
        Reply::anthropic_text("E"),
    ])
    .await;
    h.send("one").await;
    h.send("two").await;
    assert_eq!(without_reminder(h.sent(1)), ["one", "A", "two"]);

    let cleared = h.command("/clear").await.unwrap();
    assert!(cleared.starts_with("Context cleared"), "{cleared}");
    assert_eq!(h.cached_len().await, Some(0));
    h.send("three").await;
    assert_eq!(without_reminder(h.sent(2)), ["three"]);

    h.send("four").await;
    let compacted = h.command("/compact").await.unwrap();
    assert!(compacted.starts_with("Compacted:"), "{compacted}");
    h.send("five").await;
    let sent = h.sent(5).join("\n");
    assert!(
        sent.contains("THE SUMMARY") && sent.contains("five") && !sent.contains("three"),
        "{sent}"
    );
    let stored = h.engine.store().context(&h.id).await.unwrap();
    assert_eq!(h.cached_len().await, Some(stored.len()));
}

#[tokio::test]
async fn forgetting_waits_for_the_running_turn_so_no_stale_copy_survives() {
    let h = Harness::new(vec![
        Reply::Hang {
            body: String::new(),
        },
        Reply::anthropic_text("B"),
    ])
    .await;
    let engine = h.engine.clone();
    let rt = engine.runtimes.get(&h.id).unwrap();
    let mut ended = pin!(rt.turn_ended.notified());
    ended.as_mut().enable();
    engine
        .send(SendParams {
            session_id: h.id.clone(),
            text: "one".into(),
            env: h.env.clone(),
            model: None,
            mode: None,
        })
        .await
        .unwrap();
    while h.server.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let id = h.id.clone();
    let forget = tokio::spawn(async move { engine.forget_cached_context(&id).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!forget.is_finished(), "the running turn holds the context");
    assert!(h.engine.cancel(&h.id).await.unwrap());
    tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("the turn ends");
    tokio::time::timeout(Duration::from_secs(10), forget)
        .await
        .expect("forgetting ends with the turn")
        .unwrap();
    assert_eq!(h.cached_len().await, None);
    h.send("two").await;
    assert_eq!(without_reminder(h.sent(1)), ["one|two"]);
}

#[tokio::test]
async fn a_rewritten_context_with_an_unanswered_call_is_repaired_before_the_model_sees_it() {
    use roocode_protocol::content::{ContentBlock, Role};

    let h = Harness::new(vec![Reply::anthropic_text("A"), Reply::anthropic_text("B")]).await;
    h.send("one").await;
    let damaged = [
        Message::user_text("read it"),
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: "t1".into(),
                name: "Read".into(),
                input: json!({"file_path": "a"}),
            }],
        },
    ];
    h.engine
        .store()
        .replace_context(&h.id, &damaged)
        .await
        .unwrap();
    h.engine.forget_cached_context(&h.id).await;
    h.send("two").await;
    let body = h.server.requests()[1].json();
    let last = &body["messages"][2]["content"];
    assert_eq!(last[0]["type"], "tool_result", "{body}");
    assert_eq!(last[0]["tool_use_id"], "t1");
    assert_eq!(last[1]["text"], "two");
    let stored = h.engine.store().context(&h.id).await.unwrap();
    crate::context::chain::validate(&stored).unwrap();
    assert_eq!(h.cached_len().await, Some(stored.len()));
}

#[tokio::test]
async fn an_import_into_a_session_reaches_its_next_model_call() {
    use roocode_protocol::session::ImportParams;

    let h = Harness::new(vec![Reply::anthropic_text("A"), Reply::anthropic_text("B")]).await;
    h.send("one").await;
    let line = serde_json::to_string(&Message::user_text("imported")).unwrap();
    h.engine
        .import(ImportParams {
            session_id: Some(h.id.clone()),
            cwd: String::new(),
            title: None,
            lines: vec![line],
            env: h.env.clone(),
        })
        .await
        .unwrap();
    h.send("two").await;
    assert_eq!(without_reminder(h.sent(1)), ["one", "A", "imported|two"]);
}
