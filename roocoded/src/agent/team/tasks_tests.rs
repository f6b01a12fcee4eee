//! The task list's rules inside the engine, against a hostile teammate: it cannot
//! complete, assign, block or rename another's task, reopen a completed one, or
//! delete the team; the lead assigns anyone, and the new owner is told by mail whose
//! sender is the lead.

use std::sync::Arc;

use roocode_protocol::paths::Paths;
use roocode_protocol::session::{ClientEnv, CreateParams, SessionKind};

use super::TeamLink;
use super::tasks::{Actor, LEAD};
use crate::agent::Engine;
use crate::llm::test_server::TestServer;
use crate::store::{MailKind, NewMember, SessionRow, TaskStatus};
use crate::tools::{NewTeamTask, TaskChange, TaskStatusChange, TeamHost};

struct Team {
    engine: Arc<Engine>,
    _dir: tempfile::TempDir,
    env: ClientEnv,
    lead: Actor,
    alice: Actor,
    bob: Actor,
    bob_session: SessionRow,
}

/// A lead with team `alpha` and members alice and bob (sessions without agents: mail
/// to them is stored, and waking them starts nothing).
async fn team() -> Team {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let paths = Paths::resolve(|name| (name == "ROOCODE_HOME").then(|| home.display().to_string()))
        .unwrap();
    let store = crate::store::Store::open(&paths.database).await.unwrap();
    let engine = Arc::new(Engine::new(store, paths));
    // No model call is expected: the server answers none.
    let server = TestServer::start(vec![]).await;
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
    let store = engine.store();
    store
        .create_team("t1", "alpha", &lead, "", "none")
        .await
        .unwrap();
    let mut members = Vec::new();
    for name in ["alice", "bob"] {
        let id = engine.create(create()).await.unwrap().id;
        store
            .add_member(&NewMember {
                team_id: "t1",
                name,
                agent_id: &id,
                agent_type: "general-purpose",
                model: "m",
                worktree: None,
                backend: "in-process",
                plan_mode_required: false,
            })
            .await
            .unwrap();
        members.push(id);
    }
    let team = engine.store().team("t1").await.unwrap().unwrap();
    let actor = |id: &str, name: &str| Actor {
        team: team.clone(),
        agent_id: id.to_string(),
        name: name.to_string(),
    };
    let mut bob_session = engine.store().session(&members[1]).await.unwrap().unwrap();
    bob_session.kind = SessionKind::Teammate;
    Team {
        lead: actor(&lead, LEAD),
        alice: actor(&members[0], "alice"),
        bob: actor(&members[1], "bob"),
        bob_session,
        engine,
        _dir: dir,
        env,
    }
}

fn change(task_id: i64) -> TaskChange {
    TaskChange {
        task_id,
        ..TaskChange::default()
    }
}

#[tokio::test]
async fn a_teammate_cannot_touch_another_s_task_and_the_lead_assigns_by_mail() {
    let t = team().await;
    let e = &t.engine;
    let new = |subject: &str| NewTeamTask {
        subject: subject.into(),
        description: String::new(),
        blocked_by: vec![],
    };
    e.create_team_task(&t.lead, new("design")).await.unwrap();
    e.create_team_task(&t.bob, new("build")).await.unwrap();

    // The lead assigns #1 to alice, who is told by the lead (a sender nobody forges).
    let assigned = e
        .update_team_task(
            &t.lead,
            TaskChange {
                owner: Some("alice".into()),
                ..change(1)
            },
        )
        .await
        .unwrap();
    assert!(assigned.contains("owned by alice") && assigned.contains("alice was told"));
    let mail = e.store().unread_mail(&t.alice.agent_id).await.unwrap();
    assert_eq!(mail.len(), 1, "{mail:?}");
    assert_eq!(
        (mail[0].kind, mail[0].sender.as_str()),
        (MailKind::TaskAssignment, t.lead.agent_id.as_str())
    );
    assert!(
        mail[0].body.contains("task #1 \"design\""),
        "{}",
        mail[0].body
    );

    // bob, hostile: none of this is his to do.
    let refusals = [
        (
            TaskChange {
                status: Some(TaskStatusChange::Completed),
                ..change(1)
            },
            "task #1 is alice's: only its owner or the lead can complete it",
        ),
        (
            TaskChange {
                status: Some(TaskStatusChange::InProgress),
                ..change(1)
            },
            "task #1 is alice's already",
        ),
        (
            TaskChange {
                owner: Some("bob".into()),
                ..change(1)
            },
            "task #1 is alice's already",
        ),
        (
            TaskChange {
                owner: Some("alice".into()),
                ..change(2)
            },
            "a teammate sets only itself as a task's owner",
        ),
        (
            TaskChange {
                owner: Some(String::new()),
                ..change(1)
            },
            "only its owner or the lead can give it up",
        ),
        (
            TaskChange {
                add_blocked_by: vec![2],
                ..change(1)
            },
            "only its owner or the lead can make it wait for another task",
        ),
        (
            TaskChange {
                add_blocks: vec![1],
                ..change(2)
            },
            "only its owner or the lead can make it wait for another task",
        ),
        (
            TaskChange {
                subject: Some("nothing".into()),
                ..change(1)
            },
            "only its owner or the lead can change its subject or description",
        ),
        (change(9), "no task #9 in this team"),
    ];
    for (attempt, why) in refusals {
        let err = e
            .update_team_task(&t.bob, attempt.clone())
            .await
            .unwrap_err();
        assert!(err.contains(why), "{attempt:?}: {err}");
    }
    let one = e.store().task("t1", 1).await.unwrap().unwrap();
    assert_eq!(
        (one.status, one.owner.as_deref(), one.blocked_by.len()),
        (TaskStatus::Pending, Some("alice"), 0)
    );

    // His own (unowned) task he may claim, make wait for #1, complete once unblocked,
    // but not reopen.
    e.update_team_task(
        &t.bob,
        TaskChange {
            owner: Some("bob".into()),
            add_blocked_by: vec![1],
            ..change(2)
        },
    )
    .await
    .unwrap();
    let blocked = e
        .update_team_task(
            &t.bob,
            TaskChange {
                status: Some(TaskStatusChange::Completed),
                ..change(2)
            },
        )
        .await
        .unwrap_err();
    assert!(blocked.contains("task #2 is blocked by #1"), "{blocked}");
    e.update_team_task(
        &t.alice,
        TaskChange {
            status: Some(TaskStatusChange::Completed),
            ..change(1)
        },
    )
    .await
    .unwrap();
    let told = e.store().unread_mail(&t.bob.agent_id).await.unwrap();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].sender, super::tasks::TASK_LIST_SENDER);
    e.update_team_task(
        &t.bob,
        TaskChange {
            status: Some(TaskStatusChange::Completed),
            ..change(2)
        },
    )
    .await
    .unwrap();
    let reopen = e
        .update_team_task(
            &t.bob,
            TaskChange {
                status: Some(TaskStatusChange::Pending),
                ..change(2)
            },
        )
        .await
        .unwrap_err();
    assert!(reopen.contains("only the lead reopens"), "{reopen}");

    // And the team is the lead's to delete.
    let link = TeamLink::new(e.clone(), t.bob_session.clone());
    let err = link.delete_team(Some("alpha")).await.unwrap_err();
    assert!(
        err.contains("only the team's lead deletes the team"),
        "{err}"
    );
    assert!(e.store().team("t1").await.unwrap().is_some());
    // The lead names its team or nothing; another name is refused.
    let lead = e.store().session(&t.lead.agent_id).await.unwrap().unwrap();
    let link = TeamLink::new(e.clone(), lead);
    let err = link.delete_team(Some("beta")).await.unwrap_err();
    assert!(err.contains("you lead the team \"alpha\""), "{err}");
    assert!(e.store().team("t1").await.unwrap().is_some());
    let without_name = link.delete_team(None).await;
    assert!(
        !format!("{without_name:?}").contains("give its name"),
        "{without_name:?}"
    );
}

#[tokio::test]
async fn only_the_lead_and_members_act_in_a_team() {
    let t = team().await;
    let e = &t.engine;
    let lead = e.store().session(&t.lead.agent_id).await.unwrap().unwrap();
    let as_lead = e.team_actor(&lead).await.unwrap().unwrap();
    assert_eq!(
        (as_lead.name.as_str(), as_lead.team.id.as_str()),
        (LEAD, "t1")
    );
    let as_bob = e.team_actor(&t.bob_session).await.unwrap().unwrap();
    assert_eq!(as_bob.name, "bob");
    // Another main session leads nothing and is in no team.
    let outsider = e
        .create(CreateParams {
            cwd: lead.cwd.clone(),
            env: t.env.clone(),
            ..CreateParams::default()
        })
        .await
        .unwrap()
        .id;
    let outsider = e.store().session(&outsider).await.unwrap().unwrap();
    assert!(e.team_actor(&outsider).await.unwrap().is_none());
    let link = TeamLink::new(e.clone(), outsider);
    assert_eq!(link.team_tasks().await.unwrap(), None);
    let err = link
        .create_task(NewTeamTask {
            subject: "x".into(),
            ..NewTeamTask::default()
        })
        .await
        .unwrap_err();
    assert!(err.contains("you are in no team"), "{err}");
}
