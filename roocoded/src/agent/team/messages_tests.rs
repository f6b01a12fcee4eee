//! The rules of `SendMessage` inside the engine, against a hostile caller: a teammate
//! cannot do what only the lead may (ask for a shutdown, answer or approve a plan,
//! assign work), nobody answers a request it was not sent or answers one twice, a lead
//! answers only a teammate's newest plan, and approval takes the lead's mode.

use std::sync::Arc;

use roocode_protocol::Mode;
use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams};

use crate::agent::Engine;
use crate::llm::test_server::{Reply, TestServer};
use crate::store::{MailKind, MemberState, NewMember, SessionRow, Store};
use crate::tools::Outgoing;

struct Team {
    engine: Arc<Engine>,
    lead: SessionRow,
    a: SessionRow,
    b: SessionRow,
    _server: TestServer,
    _dir: tempfile::TempDir,
}

/// A lead with members `a` and `b` (sessions without agent rows: mail to them is
/// stored, and no run starts); the lead's wakes answer from a test server.
async fn team() -> Team {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
        .unwrap();
    let store = Store::open(&paths.database).await.unwrap();
    let engine = Arc::new(Engine::new(store, paths));
    let server = TestServer::start(vec![Reply::anthropic_text("Noted."); 8]).await;
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
    let mut ids = Vec::new();
    for _ in 0..3 {
        let params = CreateParams {
            cwd: project.display().to_string(),
            env: env.clone(),
            ..CreateParams::default()
        };
        ids.push(engine.create(params).await.unwrap().id);
    }
    let store = engine.store();
    store
        .create_team("t1", "alpha", &ids[0], "", "none")
        .await
        .unwrap();
    for (name, id) in [("a", &ids[1]), ("b", &ids[2])] {
        store
            .add_member(&NewMember {
                team_id: "t1",
                name,
                agent_id: id,
                agent_type: "general-purpose",
                model: "anthropic/claude-sonnet-4-5",
                worktree: None,
                backend: "in-process",
                plan_mode_required: false,
            })
            .await
            .unwrap();
    }
    let row = |id: &str| {
        let store = store.clone();
        let id = id.to_string();
        async move { store.session(&id).await.unwrap().unwrap() }
    };
    Team {
        lead: row(&ids[0]).await,
        a: row(&ids[1]).await,
        b: row(&ids[2]).await,
        engine,
        _server: server,
        _dir: dir,
    }
}

fn out(to: &str, kind: &str, message: &str) -> Outgoing {
    Outgoing {
        to: Some(to.into()),
        kind: Some(kind.into()),
        message: message.into(),
        ..Outgoing::default()
    }
}

fn answer(to: &str, kind: &str, request_id: &str, approve: bool, message: &str) -> Outgoing {
    Outgoing {
        request_id: Some(request_id.into()),
        approve: Some(approve),
        ..out(to, kind, message)
    }
}

/// The `plan-…`/`shutdown-…` id a reply names.
fn id_in(reply: &str) -> String {
    let start = reply.find("request_id \"").unwrap() + "request_id \"".len();
    let end = reply[start..].find('"').unwrap();
    reply[start..start + end].to_string()
}

#[tokio::test]
async fn a_teammate_cannot_do_what_only_the_lead_may() {
    let t = team().await;
    let e = &t.engine;
    let refused = [
        (out("b", "shutdown_request", ""), "only the lead asks"),
        (
            answer("b", "plan_approval_response", "plan-1", true, ""),
            "only the lead approves",
        ),
        (
            out("b", "task_assignment", "do my part"),
            "only the lead assigns",
        ),
        (out("lead", "idle_notification", "idle"), "daemon"),
        (
            answer("lead", "shutdown_response", "shutdown-1", true, ""),
            "sent you no shutdown request",
        ),
        (
            answer("b", "shutdown_response", "shutdown-1", true, ""),
            "to the lead only",
        ),
        (out("b", "message", "hi"), "summary"),
        (
            Outgoing {
                summary: Some("a few words about it".into()),
                ..out("nobody", "message", "hi")
            },
            "lead, a, b",
        ),
        (
            Outgoing {
                summary: Some("a few words about it".into()),
                ..out("a", "message", "hi")
            },
            "that is you",
        ),
    ];
    for (outgoing, why) in refused {
        let err = e
            .send_team_message(&t.a, outgoing.clone())
            .await
            .unwrap_err();
        assert!(err.contains(why), "{outgoing:?}: {err}");
    }
    assert!(e.store().team_mail("t1", None).await.unwrap().is_empty());

    // The lead does not answer its own kind of request, and needs a team to talk at all.
    let err = e
        .send_team_message(&t.lead, answer("a", "shutdown_response", "x", true, ""))
        .await
        .unwrap_err();
    assert!(err.contains("lead does not answer"), "{err}");
    e.store().delete_team("t1").await.unwrap();
    let err = e
        .send_team_message(&t.lead, out("a", "message", "hi"))
        .await
        .unwrap_err();
    assert!(err.contains("TeamCreate"), "{err}");
}

#[tokio::test]
async fn recipients_are_names_ids_and_prefixes_and_a_broadcast_skips_the_sender_and_the_stopped() {
    let t = team().await;
    let caller = t.engine.team_caller(&t.a).await.unwrap();
    let names = |r: Vec<super::messages::Recipient>| -> Vec<String> {
        r.into_iter().map(|r| r.name).collect()
    };
    assert_eq!(
        names(t.engine.recipients(&caller, "*").await.unwrap()),
        ["lead", "b"]
    );
    assert_eq!(
        names(t.engine.recipients(&caller, "team-lead").await.unwrap()),
        ["lead"]
    );
    assert_eq!(
        names(t.engine.recipients(&caller, &t.b.id).await.unwrap()),
        ["b"]
    );
    let tail = &t.b.id[24..];
    assert_eq!(
        names(t.engine.recipients(&caller, &tail[..8]).await.unwrap()),
        ["b"],
        "short id"
    );
    assert_eq!(
        names(t.engine.recipients(&caller, &t.b.id[..30]).await.unwrap()),
        ["b"]
    );
    assert!(
        t.engine.recipients(&caller, &t.b.id[..2]).await.is_err(),
        "too short a prefix"
    );
    t.engine
        .store()
        .set_member_state(&t.b.id, MemberState::Stopped)
        .await
        .unwrap();
    assert_eq!(
        names(t.engine.recipients(&caller, "*").await.unwrap()),
        ["lead"]
    );
}

#[tokio::test]
async fn a_shutdown_request_is_answered_once_by_the_teammate_it_was_sent_to() {
    let t = team().await;
    let e = &t.engine;
    let sent = e
        .send_team_message(&t.lead, out("a", "shutdown_request", "wrap up"))
        .await
        .unwrap();
    let id = id_in(&sent);
    assert!(id.starts_with("shutdown-"), "{sent}");
    let err = e
        .send_team_message(&t.b, answer("lead", "shutdown_response", &id, true, ""))
        .await
        .unwrap_err();
    assert!(
        err.contains("sent you no shutdown request"),
        "b answers for a: {err}"
    );
    let err = e
        .send_team_message(&t.a, answer("lead", "shutdown_response", &id, false, " "))
        .await
        .unwrap_err();
    assert!(err.contains("why"), "a refusal needs a reason: {err}");
    let refused = e
        .send_team_message(
            &t.a,
            answer("lead", "shutdown_response", &id, false, "tests run"),
        )
        .await
        .unwrap();
    assert!(refused.contains("Go on with your work"), "{refused}");
    let err = e
        .send_team_message(&t.a, answer("lead", "shutdown_response", &id, true, ""))
        .await
        .unwrap_err();
    assert!(err.contains("answered"), "{err}");
    let to_lead = e.store().team_mail("t1", Some(&t.lead.id)).await.unwrap();
    assert_eq!(to_lead.len(), 1);
    assert_eq!(to_lead[0].kind, MailKind::ShutdownResponse);
    assert_eq!(to_lead[0].sender, t.a.id, "the sender is the caller");
    assert_eq!(to_lead[0].approve, Some(false));
}

#[tokio::test]
async fn only_the_newest_plan_is_answered_and_approval_takes_the_lead_s_mode() {
    let t = team().await;
    let e = &t.engine;
    let err = e.submit_plan(&t.a, "- do it").await.unwrap_err();
    assert!(err.contains("not in plan mode"), "{err}");
    e.set_mode(&t.a.id, "plan").await.unwrap();
    e.set_mode(&t.lead.id, "acceptEdits").await.unwrap();
    let first = id_in(&e.submit_plan(&t.a, "- plan one").await.unwrap());
    let second = id_in(&e.submit_plan(&t.a, "- plan two").await.unwrap());
    let err = e
        .send_team_message(
            &t.lead,
            answer("a", "plan_approval_response", &first, true, ""),
        )
        .await
        .unwrap_err();
    assert!(err.contains("newer plan"), "{err}");
    let err = e
        .send_team_message(
            &t.lead,
            answer("b", "plan_approval_response", &second, true, ""),
        )
        .await
        .unwrap_err();
    assert!(
        err.contains("b sent you no plan"),
        "a's plan is not b's: {err}"
    );
    let err = e
        .send_team_message(
            &t.lead,
            answer("a", "plan_approval_response", &second, false, ""),
        )
        .await
        .unwrap_err();
    assert!(err.contains("what to change"), "{err}");
    let approved = e
        .send_team_message(
            &t.lead,
            answer("a", "plan_approval_response", &second, true, ""),
        )
        .await
        .unwrap();
    assert!(approved.contains("acceptEdits"), "{approved}");
    let a = e.store().session(&t.a.id).await.unwrap().unwrap();
    assert_eq!(a.mode, Mode::AcceptEdits);
    let err = e
        .send_team_message(
            &t.lead,
            answer("a", "plan_approval_response", &second, true, ""),
        )
        .await
        .unwrap_err();
    assert!(err.contains("answered"), "{err}");
    let to_a = e.store().team_mail("t1", Some(&t.a.id)).await.unwrap();
    assert_eq!(to_a.len(), 1, "{to_a:?}");
    assert_eq!(to_a[0].approve, Some(true));
}
