//! A teammate's life inside the engine when the database misbehaves or a run races
//! something: a run's end that cannot be recorded still lets the next message wake it,
//! and a resume that cannot reopen its worktree leaves its rows as they were.
//!
//! Failures are made from a second connection to the daemon's database file (a trigger
//! that refuses a write, as a busy database would; a table renamed away), so the code
//! under test runs unchanged.

use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::Mode;
use roocode_protocol::agents::AgentState;
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams, SessionKind};
use sqlx::Connection;

use crate::agent::Engine;
use crate::agent::children::{ChildSpec, Phase};
use crate::llm::test_server::{Reply, TestServer};
use crate::store::{MailKind, MemberState, NewAgent, NewMail, NewMember, NewSession, Store};

pub(super) struct Fixture {
    pub engine: Arc<Engine>,
    pub lead: String,
    /// The teammate `builder` (idle, its run over).
    pub mate: String,
    pub db: PathBuf,
    pub server: TestServer,
    _dir: tempfile::TempDir,
}

/// A lead with team `t1` ("alpha") and an idle teammate `builder` whose spec names
/// `workspace` (a worktree it must get back before it runs again); turns answer from
/// a test server with `replies`.
pub(super) async fn fixture(replies: Vec<Reply>, workspace: Option<PathBuf>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
        .unwrap();
    let db = paths.database.clone();
    let store = Store::open(&paths.database).await.unwrap();
    let engine = Arc::new(Engine::new(store, paths));
    let server = TestServer::start(replies).await;
    let env = ClientEnv {
        vars: [
            ("ANTHROPIC_API_KEY", "sk-test"),
            ("ANTHROPIC_BASE_URL", server.url.as_str()),
            ("ROOCODE_MODEL", "anthropic/claude-sonnet-4-5"),
            ("ROOCODE_TEAM_DEBOUNCE_MS", "10"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    };
    let params = CreateParams {
        cwd: project.display().to_string(),
        env,
        ..CreateParams::default()
    };
    let lead = engine.create(params).await.unwrap().id;
    let store = engine.store();
    store
        .create_team("t1", "alpha", &lead, "", "none")
        .await
        .unwrap();
    let mate = "0197builder-mate".to_string();
    let spec = ChildSpec {
        system_prompt: "You are builder.".into(),
        custom: false,
        background: true,
        tools: None,
        disallowed_tools: Vec::new(),
        max_turns: None,
        read_only_commands: false,
        timeout_s: 60,
        advertised_tools: None,
        workspace,
        team: Some("t1".into()),
    };
    store
        .insert_agent(&NewAgent {
            session: NewSession {
                id: mate.clone(),
                parent_session_id: Some(lead.clone()),
                kind: SessionKind::Teammate,
                title: "builder".into(),
                cwd: project.display().to_string(),
                root: project.display().to_string(),
                model: "anthropic/claude-sonnet-4-5".into(),
                mode: Mode::Default,
            },
            name: "builder".into(),
            agent_type: "general-purpose".into(),
            description: "builds".into(),
            background: true,
            spec: spec.to_json().unwrap(),
            state: AgentState::Idle,
        })
        .await
        .unwrap();
    store
        .add_member(&NewMember {
            team_id: "t1",
            name: "builder",
            agent_id: &mate,
            agent_type: "general-purpose",
            model: "anthropic/claude-sonnet-4-5",
            worktree: None,
            backend: "in-process",
            plan_mode_required: false,
        })
        .await
        .unwrap();
    store
        .set_member_state(&mate, MemberState::Idle)
        .await
        .unwrap();
    Fixture {
        engine,
        lead,
        mate,
        db,
        server,
        _dir: dir,
    }
}

/// Runs `statement` on a connection of its own to the database at `db`.
pub(super) async fn sql(db: &Path, statement: &'static str) {
    let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(db);
    let mut conn = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
    sqlx::query(statement).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

/// A plain message from the lead to `to`.
pub(super) fn message<'a>(lead: &'a str, body: &'a str) -> NewMail<'a> {
    NewMail {
        team_id: "t1",
        sender: lead,
        kind: MailKind::Message,
        summary: "more work for you",
        body,
        request_id: None,
        approve: None,
    }
}

const REFUSE_MEMBER_WRITES: &str = "CREATE TRIGGER refuse_member_writes BEFORE UPDATE ON team_members BEGIN SELECT RAISE(ABORT, 'database is locked'); END";

#[tokio::test]
async fn a_run_end_that_cannot_be_recorded_still_lets_a_message_wake_the_teammate() {
    let f = fixture(vec![Reply::anthropic_text("On it."); 4], None).await;
    // Stopping an idle teammate ends a run at once; recording that end fails.
    sql(&f.db, REFUSE_MEMBER_WRITES).await;
    f.engine.stop_agent(&f.mate).await.unwrap();
    assert!(
        f.engine.children.get(&f.mate).is_none(),
        "the run's entry is closed although its end was not recorded"
    );

    // The database is fine again: the next message resumes the teammate.
    sql(&f.db, "DROP TRIGGER refuse_member_writes").await;
    let rt = f.engine.runtime(&f.mate).await.unwrap();
    let mut turn_ended = pin!(rt.turn_ended.notified());
    turn_ended.as_mut().enable();
    let posted = f
        .engine
        .post_mail(&message(&f.lead, "Build the parser."), &[&f.mate])
        .await
        .unwrap();
    assert!(posted.not_woken.is_empty(), "{posted:?}");
    tokio::time::timeout(Duration::from_secs(10), turn_ended)
        .await
        .expect("the teammate ran a turn for its mail");
    let sent = f.server.requests()[0].json()["messages"].to_string();
    assert!(sent.contains("Build the parser."), "{sent}");
}

#[tokio::test]
async fn a_run_that_cannot_read_its_session_closes_its_entry() {
    let f = fixture(Vec::new(), None).await;
    let row = f.engine.store().agent(&f.mate).await.unwrap().unwrap();
    let entry = f.engine.children.open(&f.mate, Phase::Background);
    sql(&f.db, "ALTER TABLE sessions RENAME TO sessions_gone").await;
    assert!(f.engine.run_opened(&row, entry).await.is_err());
    assert!(
        f.engine.children.get(&f.mate).is_none(),
        "a run that did not start leaves no entry behind"
    );
}

#[tokio::test]
async fn a_sub_agent_whose_end_cannot_be_read_is_finished_as_failed() {
    let f = fixture(Vec::new(), None).await;
    // Not a teammate any more: its end goes through finish_child.
    f.engine.store().delete_team("t1").await.unwrap();
    let entry = f.engine.children.open(&f.mate, Phase::Foreground);
    let mut outcome = entry.outcome();
    sql(&f.db, "ALTER TABLE messages RENAME TO messages_gone").await;
    f.engine.child_ended(&f.mate).await;
    assert!(f.engine.children.get(&f.mate).is_none());
    let ended = outcome
        .borrow_and_update()
        .clone()
        .expect("a waiting parent is not left waiting");
    assert_eq!(ended.state, AgentState::Failed, "{ended:?}");
    assert!(
        ended
            .error
            .as_deref()
            .is_some_and(|e| e.contains("could not be recorded")),
        "{ended:?}"
    );
}

#[tokio::test]
async fn a_teammate_whose_worktree_cannot_be_reopened_keeps_its_rows_as_they_were() {
    // Its spec names a worktree that is gone, and no branch to check it out from.
    let gone = std::env::temp_dir().join("roocode-no-such-worktree-7c1f");
    let f = fixture(Vec::new(), Some(gone)).await;
    let store = f.engine.store();
    let err = f.engine.wake(&f.mate).await.unwrap_err();
    assert!(err.to_string().contains("no branch"), "{err}");
    let agent = store.agent(&f.mate).await.unwrap().unwrap();
    assert_eq!(agent.state, AgentState::Idle, "not queued with no run");
    let member = store.member(&f.mate).await.unwrap().unwrap();
    assert_eq!(member.state, MemberState::Idle, "not active with no run");
    assert!(f.engine.children.get(&f.mate).is_none());
}

#[tokio::test]
async fn a_teammate_that_cannot_be_resumed_after_a_restart_is_stopped_and_its_lead_told() {
    let f = fixture(vec![Reply::anthropic_text("Noted."); 2], None).await;
    let store = f.engine.store();
    // A previous daemon left it running, with a spec this one cannot read.
    sql(
        &f.db,
        "UPDATE agents SET state = 'running', spec = '{' WHERE name = 'builder'",
    )
    .await;
    store
        .set_member_state(&f.mate, MemberState::Active)
        .await
        .unwrap();
    f.engine.resume_agents().await.unwrap();
    let member = store.member(&f.mate).await.unwrap().unwrap();
    assert_eq!(
        member.state,
        MemberState::Stopped,
        "TeamDelete can go ahead"
    );
    let agent = store.agent(&f.mate).await.unwrap().unwrap();
    assert_eq!(agent.state, AgentState::Failed);
    let told = store.team_mail("t1", Some(&f.lead)).await.unwrap();
    assert!(
        told.iter().any(
            |m| m.kind == MailKind::IdleNotification && m.body.contains("could not be resumed")
        ),
        "{told:?}"
    );
}

#[tokio::test]
async fn a_member_woken_while_its_team_is_deleted_is_stopped_and_ends_before_its_rows_go() {
    // Its model call never answers: the run is in the middle of a turn.
    let f = fixture(
        vec![Reply::Hang {
            body: String::new(),
        }],
        None,
    )
    .await;
    let store = f.engine.store();
    f.engine
        .post_mail(&message(&f.lead, "Build the parser."), &[&f.mate])
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while f.server.requests().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the teammate's turn calls its model");
    // As the delete's check read it: woken just after, so still idle in its list.
    store
        .set_member_state(&f.mate, MemberState::Idle)
        .await
        .unwrap();
    let answer = f.engine.delete_team("t1").await.unwrap();
    assert!(answer.contains("deleted"), "{answer}");
    assert!(
        f.engine.children.get(&f.mate).is_none(),
        "its run ended before the team went"
    );
    let agent = store.agent(&f.mate).await.unwrap().unwrap();
    assert_eq!(
        agent.state,
        AgentState::Cancelled,
        "recorded as a stopped member"
    );
    assert!(
        !store.has_queued_injections(&f.lead).await.unwrap(),
        "the lead is not told of a sub-agent's end"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(f.server.requests().len(), 1, "and not woken for it");
}

#[tokio::test]
async fn a_wake_that_finds_its_member_gone_starts_no_run() {
    let f = fixture(vec![Reply::anthropic_text("On it.")], None).await;
    let store = f.engine.store();
    store.delete_team("t1").await.unwrap();
    f.engine.wake_teammate(&f.mate).await.unwrap();
    assert!(f.engine.children.get(&f.mate).is_none());
    let agent = store.agent(&f.mate).await.unwrap().unwrap();
    assert_eq!(agent.state, AgentState::Idle, "not restarted");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(f.server.requests().is_empty());
}

/// Waits until the test server has seen `n` requests.
async fn requests_reach(server: &TestServer, n: usize) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while server.requests().len() < n {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the model is called");
}

#[tokio::test]
async fn after_a_start_a_stopped_teammate_resumes_only_for_mail_sent_since_it_stopped() {
    let f = fixture(vec![Reply::anthropic_text("Back at it."); 2], None).await;
    let store = f.engine.store();
    // Mail waiting when it was stopped (it agreed to shut down, say).
    store
        .send_mail(&message(&f.lead, "An old note."), &[&f.mate])
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    f.engine.stop_agent(&f.mate).await.unwrap();
    let member = store.member(&f.mate).await.unwrap().unwrap();
    assert_eq!(member.state, MemberState::Stopped);
    f.engine.resume_teammates().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(f.server.requests().is_empty(), "the stop is not undone");
    assert!(f.engine.children.get(&f.mate).is_none());

    // Mail sent since (stored before a crash, say, its wake lost) resumes it.
    tokio::time::sleep(Duration::from_millis(5)).await;
    store
        .send_mail(&message(&f.lead, "Build the parser."), &[&f.mate])
        .await
        .unwrap();
    f.engine.resume_teammates().await.unwrap();
    requests_reach(&f.server, 1).await;
    let sent = f.server.requests()[0].json()["messages"].to_string();
    assert!(sent.contains("Build the parser."), "{sent}");
}

#[tokio::test]
async fn mail_that_comes_as_a_stopped_run_closes_resumes_it_by_the_same_rule() {
    let f = fixture(vec![Reply::anthropic_text("Back at it."); 2], None).await;
    // A message committed just after the run's end (its wake found the run still
    // open): written with the end, dated after it.
    sql(
        &f.db,
        "CREATE TRIGGER mail_after_stop AFTER UPDATE OF state ON team_members
         WHEN NEW.state = 'stopped'
         BEGIN
           INSERT INTO mailbox (team_id, sender, recipient, kind, summary, body, created_at)
           VALUES (NEW.team_id, (SELECT lead_session_id FROM teams WHERE id = NEW.team_id),
                   NEW.agent_id, 'message', 'come back', 'Build the parser.', 9999999999999);
         END",
    )
    .await;
    f.engine.stop_agent(&f.mate).await.unwrap();
    requests_reach(&f.server, 1).await;
    let sent = f.server.requests()[0].json()["messages"].to_string();
    assert!(sent.contains("Build the parser."), "{sent}");
}

#[tokio::test]
async fn a_wake_that_cannot_tell_a_teammate_is_an_error() {
    let f = fixture(vec![Reply::anthropic_text("Noted.")], None).await;
    sql(
        &f.db,
        "ALTER TABLE team_members RENAME TO team_members_gone",
    )
    .await;
    assert!(f.engine.wake(&f.lead).await.is_err());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        f.server.requests().is_empty(),
        "not woken as a plain session"
    );
}
