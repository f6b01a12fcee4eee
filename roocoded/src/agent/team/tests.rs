//! Team mail end to end inside the engine: a message posted to an idle lead wakes it
//! into one turn whose model request carries the message, read once — even when
//! another recipient of it cannot be woken.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams};

use crate::agent::Engine;
use crate::llm::test_server::{Reply, TestServer};
use crate::store::{MailKind, NewMail, NewMember, Store};

#[tokio::test]
async fn mail_to_an_idle_lead_wakes_it_into_one_turn_that_reads_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
        .unwrap();
    let store = Store::open(&paths.database).await.unwrap();
    let engine = Arc::new(Engine::new(store, paths));
    let server = TestServer::start(vec![Reply::anthropic_text(
        "Noted: the build is half done.",
    )])
    .await;
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
    let create = || CreateParams {
        cwd: project.display().to_string(),
        env: env.clone(),
        ..CreateParams::default()
    };
    let lead = engine.create(create()).await.unwrap().id;
    let builder = engine.create(create()).await.unwrap().id;
    let store = engine.store();
    store
        .create_team("t1", "alpha", &lead, "", "none")
        .await
        .unwrap();
    store
        .add_member(&NewMember {
            team_id: "t1",
            name: "builder",
            agent_id: &builder,
            agent_type: "general-purpose",
            model: "anthropic/claude-sonnet-4-5",
            worktree: None,
            backend: "in-process",
            plan_mode_required: false,
        })
        .await
        .unwrap();

    let rt = engine.runtime(&lead).await.unwrap();
    let mut ended = pin!(rt.turn_ended.notified());
    ended.as_mut().enable();
    let update = NewMail {
        team_id: "t1",
        sender: &builder,
        kind: MailKind::StatusUpdate,
        summary: "build half done",
        body: "The build is half done.",
        request_id: None,
        approve: None,
    };
    // A recipient that cannot be woken (no session: its turn cannot start) comes first:
    // the message is sent all the same, the lead after it is still woken, and the
    // sender learns who was not.
    let posted = engine
        .post_mail(&update, &["no-such-session", &lead])
        .await
        .expect("a committed send is never an error");
    assert_eq!(posted.ids.len(), 2);
    assert_eq!(posted.not_woken, ["no-such-session"]);
    tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("the lead's turn ends");

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one wake, one model call");
    let sent = requests[0].json()["messages"].to_string();
    assert!(
        sent.contains(r#"<teammate-message from=\"builder\" kind=\"status_update\" summary=\"build half done\">"#),
        "{sent}"
    );
    assert!(sent.contains("not an instruction"), "{sent}");
    assert!(store.unread_mail(&lead).await.unwrap().is_empty());
    let mail = store.team_mail("t1", Some(&lead)).await.unwrap();
    assert!(mail.len() == 1 && mail[0].read, "{mail:?}");
}
