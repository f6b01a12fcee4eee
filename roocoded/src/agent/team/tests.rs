//! Team mail end to end inside the engine: a message posted to an idle lead wakes it
//! into one turn whose model request carries the message, read once — even when
//! another recipient of it cannot be woken; a flood of mail is read over several model
//! calls, none lost.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams};

use crate::agent::Engine;
use crate::llm::test_server::{Reply, TestServer};
use crate::store::{MailKind, NewMail, NewMember, Store};

/// An engine with a lead session leading team `t1` whose member `builder` is a second
/// session; the model is `server`.
struct Team {
    _dir: tempfile::TempDir,
    engine: Arc<Engine>,
    server: TestServer,
    lead: String,
    builder: String,
}

async fn team(replies: Vec<Reply>) -> Team {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
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
    Team {
        _dir: dir,
        engine,
        server,
        lead,
        builder,
    }
}

fn update<'a>(sender: &'a str, body: &'a str) -> NewMail<'a> {
    NewMail {
        team_id: "t1",
        sender,
        kind: MailKind::StatusUpdate,
        summary: "build half done",
        body,
        request_id: None,
        approve: None,
    }
}

#[tokio::test]
async fn mail_to_an_idle_lead_wakes_it_into_one_turn_that_reads_it_once() {
    let t = team(vec![Reply::anthropic_text(
        "Noted: the build is half done.",
    )])
    .await;
    let rt = t.engine.runtime(&t.lead).await.unwrap();
    let mut ended = pin!(rt.turn_ended.notified());
    ended.as_mut().enable();
    // A recipient that cannot be woken (no session: its turn cannot start) comes first:
    // the message is sent all the same, the lead after it is still woken, and the
    // sender learns who was not.
    let posted = t
        .engine
        .post_mail(
            &update(&t.builder, "The build is half done."),
            &["no-such-session", &t.lead],
        )
        .await
        .expect("a committed send is never an error");
    assert_eq!(posted.ids.len(), 2);
    assert_eq!(posted.not_woken, ["no-such-session"]);
    tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("the lead's turn ends");

    let requests = t.server.requests();
    assert_eq!(requests.len(), 1, "one wake, one model call");
    let sent = requests[0].json()["messages"].to_string();
    assert!(
        sent.contains(r#"<teammate-message from=\"builder\" kind=\"status_update\" summary=\"build half done\">"#),
        "{sent}"
    );
    assert!(sent.contains("not an instruction"), "{sent}");
    let store = t.engine.store();
    assert!(store.unread_mail(&t.lead).await.unwrap().is_empty());
    let mail = store.team_mail("t1", Some(&t.lead)).await.unwrap();
    assert!(mail.len() == 1 && mail[0].read, "{mail:?}");
}

#[tokio::test]
async fn a_flood_of_mail_is_read_over_several_model_calls_and_none_is_lost() {
    let replies = (0..3).map(|_| Reply::anthropic_text("Noted.")).collect();
    let t = team(replies).await;
    let store = t.engine.store();
    // Three messages, each over half of what one iteration reads.
    let bodies: Vec<String> = (0..3)
        .map(|n| {
            format!(
                "PART-{n} {}",
                "x".repeat(super::super::turn::MAIL_PER_ITERATION_BYTES / 2 + 10)
            )
        })
        .collect();
    let mails: Vec<NewMail<'_>> = bodies.iter().map(|b| update(&t.builder, b)).collect();
    // Stored together before the lead wakes, as a burst of senders would.
    for mail in &mails {
        store.send_mail(mail, &[&t.lead]).await.unwrap();
    }
    t.engine.wake(&t.lead).await.unwrap();
    let read_all = async {
        while !store.unread_mail(&t.lead).await.unwrap().is_empty() || t.server.requests().len() < 3
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read_all)
        .await
        .expect("every message is read");
    let requests = t.server.requests();
    assert_eq!(requests.len(), 3, "one model call per message that fits");
    for (n, r) in requests.iter().enumerate() {
        let sent = r.json()["messages"].to_string();
        for part in 0..3 {
            assert_eq!(
                sent.matches(&format!("PART-{part} ")).count(),
                usize::from(part <= n),
                "request {n}, part {part}"
            );
        }
    }
}
