//! Teams as clients see them (`team.list|get`, `mailbox.list`, `roocode-cli team`):
//! built from the store's rows — members with their state, the task in progress each
//! owns, their unread mail and usage; the task list and its counts; the team's usage
//! (the lead's session plus every member's) — and the naming rule every team method
//! shares ([`Engine::find_team`]: an id, a name no other team has, or any session of
//! the team).

use std::collections::HashMap;

use roocode_protocol::content::Usage;
use roocode_protocol::teams::{MailInfo, MemberInfo, TaskCounts, TeamInfo, TeamTaskInfo};

use crate::agent::{AgentError, Engine};
use crate::clock;
use crate::store::{MailRow, MemberRow, TaskStatus, TeamRow, TeamTask};

fn task_info(t: &TeamTask) -> TeamTaskInfo {
    TeamTaskInfo {
        id: t.id,
        subject: t.subject.clone(),
        description: t.description.clone(),
        status: t.status.as_str().to_string(),
        owner: t.owner.clone(),
        blocked_by: t.blocked_by.clone(),
    }
}

fn counts(tasks: &[TeamTask]) -> TaskCounts {
    let mut c = TaskCounts::default();
    for t in tasks {
        match t.status {
            TaskStatus::Pending => c.pending += 1,
            TaskStatus::InProgress => c.in_progress += 1,
            TaskStatus::Completed => c.completed += 1,
        }
    }
    c
}

/// The task `member` works on: the oldest in progress that it owns.
fn current_task(member: &MemberRow, tasks: &[TeamTask]) -> Option<TeamTaskInfo> {
    tasks
        .iter()
        .find(|t| t.status == TaskStatus::InProgress && t.owner.as_deref() == Some(&member.name))
        .map(task_info)
}

/// A message for clients; `names` maps agent ids to team names.
fn mail_info(m: &MailRow, team: &str, names: &HashMap<String, String>) -> MailInfo {
    let name = |id: &str| names.get(id).cloned().unwrap_or_else(|| id.to_string());
    MailInfo {
        id: m.id,
        team: team.to_string(),
        from: name(&m.sender),
        to: name(&m.recipient),
        kind: m.kind.as_str().to_string(),
        summary: m.summary.clone(),
        body: m.body.clone(),
        request_id: m.request_id.clone(),
        approve: m.approve,
        created_at: clock::rfc3339(m.created_at),
        read: m.read,
    }
}

impl Engine {
    /// Teams, oldest first, with their members (no task list); only `session`'s team
    /// (it leads it or is a member) when given.
    pub async fn team_infos(&self, session: Option<&str>) -> Result<Vec<TeamInfo>, AgentError> {
        let teams = match session {
            Some(given) => {
                let row = self.resolve(given).await?;
                self.store.team_of(&row.id).await?.into_iter().collect()
            }
            None => self.store.teams().await?,
        };
        let tails = self.store.session_tails().await?;
        let mut out = Vec::with_capacity(teams.len());
        for team in &teams {
            out.push(self.build_team_info(team, &tails, false).await?);
        }
        Ok(out)
    }

    /// One team (see [`Engine::find_team`] for how it is named), with its task list.
    pub async fn team_info(&self, given: &str) -> Result<TeamInfo, AgentError> {
        let team = self.find_team(given).await?;
        let tails = self.store.session_tails().await?;
        self.build_team_info(&team, &tails, true).await
    }

    /// The team `given` names: its id, its name when no other team has it, or a
    /// session of it (the lead's or a member's, by id or unique prefix).
    pub async fn find_team(&self, given: &str) -> Result<TeamRow, AgentError> {
        let given = given.trim();
        if given.is_empty() {
            return Err(AgentError::Invalid(
                "no team named: give a team's name or id (`roocode-cli team` lists them)".into(),
            ));
        }
        if let Some(team) = self.store.team(given).await? {
            return Ok(team);
        }
        let mut named: Vec<TeamRow> = self
            .store
            .teams()
            .await?
            .into_iter()
            .filter(|t| t.name == given)
            .collect();
        match named.len() {
            1 => return named.pop().ok_or_else(|| not_found(given)),
            0 => {}
            _ => {
                let ids: Vec<String> = named.iter().map(|t| t.id.clone()).collect();
                return Err(AgentError::Invalid(format!(
                    "{} teams are named \"{given}\" (their ids: {}): name one by its id",
                    named.len(),
                    ids.join(", ")
                )));
            }
        }
        // A session of the team, lead or member.
        match self.resolve(given).await {
            Ok(session) => self
                .store
                .team_of(&session.id)
                .await?
                .ok_or_else(|| AgentError::Invalid(format!(
                    "session {given} is in no team (it neither leads one nor is a member): `roocode-cli team` lists the teams"
                ))),
            Err(AgentError::NotFound(_)) => Err(not_found(given)),
            Err(e) => Err(e),
        }
    }

    /// The messages of `team` (every team when absent), only those addressed to
    /// `agent` when given: a member's name, `lead`, or an agent id (without `team`, an
    /// agent id or prefix names its team too). Oldest first.
    pub async fn mail_infos(
        &self,
        team: Option<&str>,
        agent: Option<&str>,
    ) -> Result<Vec<MailInfo>, AgentError> {
        let agent = agent.map(str::trim).filter(|a| !a.is_empty());
        let teams = match (team, agent) {
            (Some(given), _) => vec![self.find_team(given).await?],
            (None, Some(who)) => match self.resolve(who).await {
                Ok(session) => self.store.team_of(&session.id).await?.into_iter().collect(),
                // A name (not a session's id): looked for in every team.
                Err(AgentError::NotFound(_) | AgentError::Ambiguous(..)) => {
                    self.store.teams().await?
                }
                Err(e) => return Err(e),
            },
            (None, None) => self.store.teams().await?,
        };
        let mut out = Vec::new();
        let mut known = agent.is_none();
        for team in &teams {
            let names = self.team_names(team).await?;
            let recipient = match agent {
                None => None,
                Some(who) => match recipient_in(team, &names, who) {
                    Some(id) => Some(id),
                    None => continue,
                },
            };
            known = true;
            let rows = self.store.team_mail(&team.id, recipient.as_deref()).await?;
            out.extend(rows.iter().map(|m| mail_info(m, &team.name, &names)));
        }
        if !known {
            let who = agent.unwrap_or_default();
            return Err(AgentError::Invalid(match team {
                Some(t) => format!(
                    "team {t} has no member `{who}`: `roocode-cli team {t}` lists its members (the lead is `lead`)"
                ),
                None => format!(
                    "no team has a member `{who}`: `roocode-cli team` lists the teams and their members"
                ),
            }));
        }
        out.sort_by_key(|m| m.id);
        Ok(out)
    }

    /// Agent id → team name for the team's lead (`lead`) and members.
    async fn team_names(&self, team: &TeamRow) -> Result<HashMap<String, String>, AgentError> {
        let mut names: HashMap<String, String> = self
            .store
            .members(&team.id)
            .await?
            .into_iter()
            .map(|m| (m.agent_id, m.name))
            .collect();
        names.insert(team.lead_session_id.clone(), "lead".to_string());
        Ok(names)
    }

    async fn build_team_info(
        &self,
        team: &TeamRow,
        tails: &[String],
        with_tasks: bool,
    ) -> Result<TeamInfo, AgentError> {
        let short = |id: &str| roocode_protocol::short_id::shortest_unique(id, tails);
        let members = self.store.members(&team.id).await?;
        let tasks = self.store.tasks(&team.id).await?;
        let mut usage = self.session_usage(&team.lead_session_id).await?;
        let mut infos = Vec::with_capacity(members.len());
        for m in &members {
            let own = self.session_usage(&m.agent_id).await?;
            usage.add(&own);
            infos.push(MemberInfo {
                name: m.name.clone(),
                agent_id: m.agent_id.clone(),
                short_id: short(&m.agent_id),
                agent_type: m.agent_type.clone(),
                model: m.model.clone(),
                state: m.state,
                backend: m.backend.clone(),
                worktree: m.worktree.clone(),
                plan_mode_required: m.plan_mode_required,
                joined_at: clock::rfc3339(m.joined_at),
                current_task: current_task(m, &tasks),
                unread_mail: self.store.unread_mail(&m.agent_id).await?.len() as u64,
                usage: own,
            });
        }
        Ok(TeamInfo {
            id: team.id.clone(),
            name: team.name.clone(),
            lead_session_id: team.lead_session_id.clone(),
            lead_short_id: short(&team.lead_session_id),
            description: team.description.clone(),
            isolation: team.isolation.clone(),
            created_at: clock::rfc3339(team.created_at),
            members: infos,
            lead_unread_mail: self.store.unread_mail(&team.lead_session_id).await?.len() as u64,
            task_counts: counts(&tasks),
            tasks: if with_tasks {
                tasks.iter().map(task_info).collect()
            } else {
                Vec::new()
            },
            usage,
        })
    }

    /// A session's own model usage (nothing when it is gone).
    async fn session_usage(&self, id: &str) -> Result<Usage, AgentError> {
        Ok(self
            .store
            .session(id)
            .await?
            .map(|s| s.usage())
            .unwrap_or_else(|| Usage {
                cost_usd: Some(0.0),
                ..Usage::default()
            }))
    }
}

/// The agent id `who` names in `team`: a member's name, `lead`/`team-lead`, or an id
/// of the team (or a prefix of one).
fn recipient_in(team: &TeamRow, names: &HashMap<String, String>, who: &str) -> Option<String> {
    if matches!(who, "lead" | "team-lead") {
        return Some(team.lead_session_id.clone());
    }
    if let Some((id, _)) = names.iter().find(|(_, name)| name.as_str() == who) {
        return Some(id.clone());
    }
    let mut ids = names.keys().filter(|id| id.starts_with(who));
    match (ids.next(), ids.next()) {
        (Some(id), None) => Some(id.clone()),
        _ => None,
    }
}

fn not_found(given: &str) -> AgentError {
    AgentError::Invalid(format!(
        "no team is named `{given}`, has that id or has a session of that id: `roocode-cli team` lists the teams"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MailKind, NewMail, NewMember, NewSession, Store};

    fn new_session(id: &str, root: &str) -> NewSession {
        NewSession {
            id: id.into(),
            parent_session_id: None,
            kind: roocode_protocol::session::SessionKind::Main,
            title: "t".into(),
            cwd: root.into(),
            root: root.into(),
            model: "anthropic/m".into(),
            mode: roocode_protocol::Mode::Default,
        }
    }

    /// An engine whose store has lead `lead-1` with team `alpha` (members `builder` and
    /// `tester`), a second lead `lead-2` with another team `beta`, two tasks and mail.
    async fn engine() -> (tempfile::TempDir, std::sync::Arc<Engine>) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let paths = roocode_protocol::paths::Paths::resolve(|name| {
            (name == "ROOCODE_HOME").then(|| home.display().to_string())
        })
        .unwrap();
        let store = Store::open(&paths.database).await.unwrap();
        for id in ["lead-1", "mate-b", "mate-t", "lead-2"] {
            store.insert_session(&new_session(id, "/p")).await.unwrap();
        }
        store
            .create_team("T1", "alpha", "lead-1", "the parser", "none")
            .await
            .unwrap();
        store
            .create_team("T2", "beta", "lead-2", "", "none")
            .await
            .unwrap();
        for (name, id) in [("builder", "mate-b"), ("tester", "mate-t")] {
            store
                .add_member(&NewMember {
                    team_id: "T1",
                    name,
                    agent_id: id,
                    agent_type: "general-purpose",
                    model: "m",
                    worktree: None,
                    backend: "in-process",
                    plan_mode_required: name == "tester",
                })
                .await
                .unwrap();
        }
        let first = store
            .create_task("T1", "write the parser", "")
            .await
            .unwrap();
        let second = store
            .create_task("T1", "test the parser", "")
            .await
            .unwrap();
        store.add_dependency("T1", second, first).await.unwrap();
        store.claim_task("T1", first, "builder").await.unwrap();
        let mail = |sender: &'static str, kind| NewMail {
            team_id: "T1",
            sender,
            kind,
            summary: "progress",
            body: "half done",
            request_id: None,
            approve: None,
        };
        store
            .send_mail(
                &mail("mate-b", MailKind::StatusUpdate),
                &["lead-1", "mate-t"],
            )
            .await
            .unwrap();
        store
            .send_mail(&mail("lead-1", MailKind::Message), &["mate-b"])
            .await
            .unwrap();
        let engine = std::sync::Arc::new(Engine::new(store, paths));
        (dir, engine)
    }

    #[tokio::test]
    async fn a_team_shows_its_members_current_tasks_and_unread_mail() {
        let (_dir, engine) = engine().await;
        let all = engine.team_infos(None).await.unwrap();
        assert_eq!(all.len(), 2);
        assert!(all[0].tasks.is_empty(), "lists leave the task list out");
        let mine = engine.team_infos(Some("mate-t")).await.unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].name, "alpha");

        let team = engine.team_info("alpha").await.unwrap();
        assert_eq!(team.id, "T1");
        assert_eq!(
            (team.description.as_str(), team.lead_unread_mail),
            ("the parser", 1)
        );
        assert_eq!(team.tasks.len(), 2);
        assert_eq!(team.tasks[1].blocked_by, vec![team.tasks[0].id]);
        let (c, members) = (team.task_counts, &team.members);
        assert_eq!((c.pending, c.in_progress, c.completed), (1, 1, 0));
        assert_eq!(members[0].name, "builder");
        assert_eq!(
            members[0].current_task.as_ref().map(|t| t.subject.as_str()),
            Some("write the parser")
        );
        assert_eq!((members[0].unread_mail, members[1].unread_mail), (1, 1));
        assert!(members[1].plan_mode_required && members[1].current_task.is_none());
        assert!(!members[0].short_id.is_empty());
        // Named by its id, or by a session of it.
        assert_eq!(engine.team_info("T1").await.unwrap().name, "alpha");
        assert_eq!(engine.team_info("mate-b").await.unwrap().name, "alpha");
        assert_eq!(engine.team_info("lead-2").await.unwrap().name, "beta");
        let missing = engine.team_info("gamma").await.unwrap_err().to_string();
        assert!(missing.contains("roocode-cli team"), "{missing}");
    }

    #[tokio::test]
    async fn a_name_two_teams_share_must_be_given_as_an_id() {
        let (_dir, engine) = engine().await;
        let store = engine.store();
        store
            .insert_session(&new_session("lead-3", "/p"))
            .await
            .unwrap();
        store
            .create_team("T3", "alpha", "lead-3", "", "none")
            .await
            .unwrap();
        let err = engine.team_info("alpha").await.unwrap_err().to_string();
        assert!(err.contains("T1") && err.contains("T3"), "{err}");
        assert_eq!(
            engine.team_info("T3").await.unwrap().lead_session_id,
            "lead-3"
        );
    }

    #[tokio::test]
    async fn the_mailbox_lists_by_team_and_by_recipient() {
        let (_dir, engine) = engine().await;
        let all = engine.mail_infos(None, None).await.unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(
            (all[0].from.as_str(), all[0].to.as_str()),
            ("builder", "lead")
        );
        assert_eq!(all[0].kind, "status_update");
        let builder = engine
            .mail_infos(Some("alpha"), Some("builder"))
            .await
            .unwrap();
        assert_eq!(builder.len(), 1);
        assert_eq!((builder[0].from.as_str(), builder[0].read), ("lead", false));
        // Without a team: a name is looked for in every team; an id names its team.
        assert_eq!(
            engine.mail_infos(None, Some("tester")).await.unwrap().len(),
            1
        );
        assert_eq!(
            engine.mail_infos(None, Some("lead-1")).await.unwrap().len(),
            1
        );
        assert_eq!(
            engine.mail_infos(Some("beta"), None).await.unwrap().len(),
            0
        );
        let err = engine
            .mail_infos(Some("alpha"), Some("nobody"))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("no member `nobody`"), "{err}");
    }

    fn task(id: i64, status: TaskStatus, owner: Option<&str>) -> TeamTask {
        TeamTask {
            id,
            subject: format!("task {id}"),
            description: String::new(),
            status,
            owner: owner.map(String::from),
            blocked_by: vec![],
        }
    }

    fn member(name: &str) -> MemberRow {
        MemberRow {
            team_id: "t1".into(),
            name: name.into(),
            agent_id: format!("id-{name}"),
            agent_type: "general-purpose".into(),
            model: "m".into(),
            worktree: None,
            backend: "in-process".into(),
            state: crate::store::MemberState::Active,
            plan_mode_required: false,
            joined_at: 0,
        }
    }

    #[test]
    fn a_member_works_on_the_oldest_task_in_progress_it_owns() {
        let tasks = [
            task(1, TaskStatus::Completed, Some("a")),
            task(2, TaskStatus::Pending, Some("a")),
            task(3, TaskStatus::InProgress, Some("b")),
            task(4, TaskStatus::InProgress, Some("a")),
            task(5, TaskStatus::InProgress, Some("a")),
        ];
        assert_eq!(current_task(&member("a"), &tasks).map(|t| t.id), Some(4));
        assert_eq!(current_task(&member("c"), &tasks), None);
        let c = counts(&tasks);
        assert_eq!((c.pending, c.in_progress, c.completed), (1, 3, 1));
    }

    #[test]
    fn recipients_are_named_by_team_name_lead_or_id() {
        let team = TeamRow {
            id: "t1".into(),
            name: "alpha".into(),
            lead_session_id: "L1".into(),
            description: String::new(),
            isolation: "none".into(),
            created_at: 0,
        };
        let names: HashMap<String, String> = [
            ("L1".to_string(), "lead".to_string()),
            ("A-111".to_string(), "builder".to_string()),
            ("A-222".to_string(), "tester".to_string()),
        ]
        .into();
        assert_eq!(
            recipient_in(&team, &names, "builder").as_deref(),
            Some("A-111")
        );
        assert_eq!(
            recipient_in(&team, &names, "team-lead").as_deref(),
            Some("L1")
        );
        assert_eq!(recipient_in(&team, &names, "A-2").as_deref(), Some("A-222"));
        assert_eq!(recipient_in(&team, &names, "A-"), None, "ambiguous");
        assert_eq!(recipient_in(&team, &names, "nobody"), None);
        let mail = MailRow {
            id: 7,
            team_id: "t1".into(),
            sender: "A-111".into(),
            recipient: "L1".into(),
            kind: MailKind::IdleNotification,
            summary: String::new(),
            body: "done".into(),
            request_id: None,
            approve: None,
            created_at: 0,
            read: false,
        };
        let info = mail_info(&mail, "alpha", &names);
        assert_eq!(
            (info.from.as_str(), info.to.as_str(), info.kind.as_str()),
            ("builder", "lead", "idle_notification")
        );
    }
}
