//! The `teams` and `team_members` tables: one team per lead session, and its members,
//! each an agent session with a name unique in the team.

use sqlx::Connection as _;

use super::team_cache::{Membership, RosterEntry, TeamCache};
use super::{Store, StoreError};
use crate::clock;

/// A team as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TeamRow {
    pub id: String,
    pub name: String,
    pub lead_session_id: String,
    pub description: String,
    /// `none` or `worktree`: whether each member gets its own git worktree.
    pub isolation: String,
    pub created_at: i64,
}

pub use roocode_protocol::teams::MemberState;

/// A stored state; an unknown value reads as `stopped` (never run by a build that does
/// not know it).
fn parse_state(s: &str) -> MemberState {
    match s {
        "active" => MemberState::Active,
        "idle" => MemberState::Idle,
        _ => MemberState::Stopped,
    }
}

/// A member as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub team_id: String,
    pub name: String,
    /// Its session's id.
    pub agent_id: String,
    pub agent_type: String,
    pub model: String,
    pub worktree: Option<String>,
    /// `in-process` or `tmux`.
    pub backend: String,
    pub state: MemberState,
    pub plan_mode_required: bool,
    pub joined_at: i64,
}

#[derive(sqlx::FromRow)]
struct StoredMember {
    team_id: String,
    name: String,
    agent_id: String,
    agent_type: String,
    model: String,
    worktree: Option<String>,
    backend: String,
    state: String,
    plan_mode_required: i64,
    joined_at: i64,
}

impl From<StoredMember> for MemberRow {
    fn from(m: StoredMember) -> Self {
        MemberRow {
            team_id: m.team_id,
            name: m.name,
            agent_id: m.agent_id,
            agent_type: m.agent_type,
            model: m.model,
            worktree: m.worktree,
            backend: m.backend,
            state: parse_state(&m.state),
            plan_mode_required: m.plan_mode_required != 0,
            joined_at: m.joined_at,
        }
    }
}

/// What it takes to add a member (its session exists already).
#[derive(Debug, Clone)]
pub struct NewMember<'a> {
    pub team_id: &'a str,
    pub name: &'a str,
    pub agent_id: &'a str,
    pub agent_type: &'a str,
    pub model: &'a str,
    pub worktree: Option<&'a str>,
    pub backend: &'a str,
    pub plan_mode_required: bool,
}

/// How a member's run ended ([`Store::member_ended`]).
#[derive(Debug, Clone)]
pub struct MemberEnd<'a> {
    pub agent_id: &'a str,
    pub agent_state: roocode_protocol::agents::AgentState,
    pub member_state: MemberState,
    pub result: Option<&'a str>,
    pub error: Option<&'a str>,
}

const MEMBERS: &str = "SELECT team_id, name, agent_id, agent_type, model, worktree, backend, state, plan_mode_required, joined_at FROM team_members";

impl Store {
    /// Creates the team of `lead_session_id`; an error if that session leads one
    /// already (one team per lead).
    pub async fn create_team(
        &self,
        id: &str,
        name: &str,
        lead_session_id: &str,
        description: &str,
        isolation: &str,
    ) -> Result<TeamRow, StoreError> {
        let mut conn = self.conn().await?;
        let team = sqlx::query_as::<_, TeamRow>(
            "INSERT INTO teams (id, name, lead_session_id, description, isolation, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
        )
        .bind(id)
        .bind(name)
        .bind(lead_session_id)
        .bind(description)
        .bind(isolation)
        .bind(clock::now_ms())
        .fetch_one(&mut *conn)
        .await?;
        self.team_cache().put_team(&team);
        Ok(team)
    }

    /// Team `id` (from memory once read: a team's row never changes).
    pub async fn team(&self, id: &str) -> Result<Option<TeamRow>, StoreError> {
        self.cached(
            |cache| cache.team(id).cloned().map(Some),
            async |conn| {
                Ok(
                    sqlx::query_as::<_, TeamRow>("SELECT * FROM teams WHERE id = ?")
                        .bind(id)
                        .fetch_optional(conn)
                        .await?,
                )
            },
            |cache, team| {
                if let Some(team) = team {
                    cache.put_team(team);
                }
            },
        )
        .await
    }

    /// The team `session_id` belongs to: the one it leads, or the one it is a member of.
    pub async fn team_of(&self, session_id: &str) -> Result<Option<TeamRow>, StoreError> {
        if let Some(m) = self.membership(session_id).await? {
            return self.team(&m.team_id).await;
        }
        let led = self
            .cached(
                |cache| cache.led_by(session_id).cloned(),
                async |conn| {
                    let team: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM teams WHERE lead_session_id = ?")
                            .bind(session_id)
                            .fetch_optional(conn)
                            .await?;
                    Ok(team.map(|(id,)| id))
                },
                |cache, led| match led {
                    // The team's row comes with the next `team`.
                    Some(_) => {}
                    None => cache.put_no_lead(session_id),
                },
            )
            .await?;
        match led {
            Some(team_id) => self.team(&team_id).await,
            None => Ok(None),
        }
    }

    /// The team, name and type of the member whose session is `agent_id`; `None` if
    /// it is no member (from memory once read, see `team_cache`).
    pub async fn membership(&self, agent_id: &str) -> Result<Option<Membership>, StoreError> {
        self.cached(
            |cache| cache.membership(agent_id).cloned(),
            async |conn| {
                let row: Option<(String, String, String)> = sqlx::query_as(
                    "SELECT team_id, name, agent_type FROM team_members WHERE agent_id = ?",
                )
                .bind(agent_id)
                .fetch_optional(conn)
                .await?;
                Ok(row.map(|(team_id, name, agent_type)| Membership {
                    team_id,
                    name,
                    agent_type,
                }))
            },
            |cache, m| cache.put_membership(agent_id, m.clone()),
        )
        .await
    }

    /// The team's members (agent id and name) in the order they joined, from memory
    /// once read: who a message can be sent to (their states are [`Store::members`]).
    pub async fn roster(&self, team_id: &str) -> Result<Vec<RosterEntry>, StoreError> {
        self.cached(
            |cache| cache.roster(team_id).cloned(),
            async |conn| {
                let rows: Vec<(String, String)> = sqlx::query_as(
                    "SELECT agent_id, name FROM team_members WHERE team_id = ? ORDER BY joined_at, name",
                )
                .bind(team_id)
                .fetch_all(conn)
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|(agent_id, name)| RosterEntry { agent_id, name })
                    .collect())
            },
            |cache, roster: &Vec<RosterEntry>| cache.put_roster(team_id, roster.clone()),
        )
        .await
    }

    /// A fact of `team_cache`: from memory, else read with the connection held and
    /// recorded before it is released (so no write comes between).
    async fn cached<T>(
        &self,
        look: impl Fn(&TeamCache) -> Option<T>,
        read: impl AsyncFnOnce(&mut sqlx::SqliteConnection) -> Result<T, StoreError>,
        record: impl FnOnce(&mut TeamCache, &T),
    ) -> Result<T, StoreError> {
        if let Some(hit) = look(&self.team_cache()) {
            return Ok(hit);
        }
        let mut conn = self.conn().await?;
        if let Some(hit) = look(&self.team_cache()) {
            return Ok(hit);
        }
        let value = read(&mut conn).await?;
        record(&mut self.team_cache(), &value);
        Ok(value)
    }

    pub async fn teams(&self) -> Result<Vec<TeamRow>, StoreError> {
        Ok(
            sqlx::query_as::<_, TeamRow>("SELECT * FROM teams ORDER BY created_at, id")
                .fetch_all(&mut *self.conn().await?)
                .await?,
        )
    }

    /// Adds a member; an error if the name is taken in the team.
    pub async fn add_member(&self, m: &NewMember<'_>) -> Result<MemberRow, StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query(
            "INSERT INTO team_members (team_id, name, agent_id, agent_type, model, worktree, backend, state, plan_mode_required, joined_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)",
        )
        .bind(m.team_id)
        .bind(m.name)
        .bind(m.agent_id)
        .bind(m.agent_type)
        .bind(m.model)
        .bind(m.worktree)
        .bind(m.backend)
        .bind(i64::from(m.plan_mode_required))
        .bind(clock::now_ms())
        .execute(&mut *conn)
        .await?;
        self.team_cache().member_added(
            m.agent_id,
            Membership {
                team_id: m.team_id.to_string(),
                name: m.name.to_string(),
                agent_type: m.agent_type.to_string(),
            },
        );
        drop(conn);
        self.member(m.agent_id)
            .await?
            .ok_or(StoreError::Sqlx(sqlx::Error::RowNotFound))
    }

    /// The member whose session is `agent_id`.
    pub async fn member(&self, agent_id: &str) -> Result<Option<MemberRow>, StoreError> {
        let row = sqlx::query_as::<_, StoredMember>(sqlx::AssertSqlSafe(format!(
            "{MEMBERS} WHERE agent_id = ?"
        )))
        .bind(agent_id)
        .fetch_optional(&mut *self.conn().await?)
        .await?;
        Ok(row.map(MemberRow::from))
    }

    /// The team's members, in the order they joined.
    pub async fn members(&self, team_id: &str) -> Result<Vec<MemberRow>, StoreError> {
        let rows = sqlx::query_as::<_, StoredMember>(sqlx::AssertSqlSafe(format!(
            "{MEMBERS} WHERE team_id = ? ORDER BY joined_at, name"
        )))
        .bind(team_id)
        .fetch_all(&mut *self.conn().await?)
        .await?;
        Ok(rows.into_iter().map(MemberRow::from).collect())
    }

    pub async fn set_member_state(
        &self,
        agent_id: &str,
        state: MemberState,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE team_members SET state = ? WHERE agent_id = ?")
            .bind(state.as_str())
            .bind(agent_id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Where a member is shown (`in-process` once its tmux pane could not be opened).
    pub async fn set_member_backend(
        &self,
        agent_id: &str,
        backend: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE team_members SET backend = ? WHERE agent_id = ?")
            .bind(backend)
            .bind(agent_id)
            .execute(&mut *self.conn().await?)
            .await?;
        Ok(())
    }

    /// Records the end of a member's run in one transaction: its agent row (`agent_state`,
    /// result, error; its parent counted as told, since a teammate's lead hears of it
    /// by mail), its member state, and `notice` for its lead (an idle notification) —
    /// so a crash loses neither the state nor the notice, and never sends it twice.
    pub async fn member_ended(
        &self,
        ended: &MemberEnd<'_>,
        notice: Option<(&super::NewMail<'_>, &str)>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "UPDATE agents SET state = ?, result = ?, error = ?, ended_at = ?, notified = 1 WHERE session_id = ?",
        )
        .bind(super::agents::state_name(ended.agent_state))
        .bind(ended.result)
        .bind(ended.error)
        .bind(clock::now_ms())
        .bind(ended.agent_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE team_members SET state = ? WHERE agent_id = ?")
            .bind(ended.member_state.as_str())
            .bind(ended.agent_id)
            .execute(&mut *tx)
            .await?;
        if let Some((mail, lead)) = notice {
            super::mailbox::insert_mail(&mut tx, mail, &[lead]).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A member's new run begins: its agent row `queued` (result, error and
    /// notification reset, as [`Store::restart_agent`] does for a background agent) and
    /// its member `active`, in one transaction — both or neither.
    pub async fn restart_member(&self, agent_id: &str) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "UPDATE agents SET state = 'queued', result = NULL, error = NULL, ended_at = NULL, notified = 0, background = 1, started_at = ? WHERE session_id = ?",
        )
        .bind(clock::now_ms())
        .bind(agent_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE team_members SET state = 'active' WHERE agent_id = ?")
            .bind(agent_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Deletes the team with its members, tasks and mail (their sessions stay).
    pub async fn delete_team(&self, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = sqlx::query("DELETE FROM teams WHERE id = ?")
            .bind(id)
            .execute(&mut *conn)
            .await?
            .rows_affected();
        self.team_cache().forget_team(id);
        Ok(n > 0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::sessions::tests::new_session;

    /// A store with a lead session `lead` and its team `t1` with members `a` and `b`.
    pub(crate) async fn team() -> Store {
        let store = Store::memory().await.unwrap();
        for id in ["lead", "a", "b"] {
            store.insert_session(&new_session(id, "/p")).await.unwrap();
        }
        store
            .create_team("t1", "alpha", "lead", "", "none")
            .await
            .unwrap();
        for name in ["a", "b"] {
            store.add_member(&member(name)).await.unwrap();
        }
        store
    }

    /// Member `name` of team `t1`, its agent id its name.
    fn member(name: &str) -> NewMember<'_> {
        NewMember {
            team_id: "t1",
            name,
            agent_id: name,
            agent_type: "general-purpose",
            model: "m",
            worktree: None,
            backend: "in-process",
            plan_mode_required: false,
        }
    }

    #[tokio::test]
    async fn what_is_kept_in_memory_follows_every_write_that_changes_it() {
        let store = Store::memory().await.unwrap();
        for id in ["lead", "a", "b", "plain"] {
            store.insert_session(&new_session(id, "/p")).await.unwrap();
        }
        let roster = async |store: &Store| -> Vec<String> {
            let roster = store.roster("t1").await.unwrap();
            roster.into_iter().map(|m| m.name).collect()
        };
        // Asked before the team exists: no team, no member (and remembered so).
        assert_eq!(store.team_of("lead").await.unwrap(), None);
        assert_eq!(store.membership("a").await.unwrap(), None);
        store
            .create_team("t1", "alpha", "lead", "", "none")
            .await
            .unwrap();
        assert!(roster(&store).await.is_empty());
        store.add_member(&member("a")).await.unwrap();
        assert_eq!(roster(&store).await, ["a"]);
        // A member joining is in the roster read next.
        store.add_member(&member("b")).await.unwrap();
        assert_eq!(roster(&store).await, ["a", "b"]);
        assert_eq!(store.team_of("lead").await.unwrap().unwrap().name, "alpha");
        assert_eq!(store.team_of("a").await.unwrap().unwrap().id, "t1");
        assert_eq!(store.membership("a").await.unwrap().unwrap().name, "a");
        assert_eq!(store.team_of("plain").await.unwrap(), None);

        // Deleted: the team, its lead's and its members' entries go.
        assert!(store.delete_team("t1").await.unwrap());
        assert_eq!(store.team("t1").await.unwrap(), None);
        assert_eq!(store.team_of("lead").await.unwrap(), None);
        assert_eq!(store.membership("a").await.unwrap(), None);
        assert!(roster(&store).await.is_empty());

        // A lead's session deleted takes its team (a cascade) out of memory too.
        store
            .create_team("t2", "beta", "lead", "", "none")
            .await
            .unwrap();
        assert!(store.team("t2").await.unwrap().is_some());
        assert!(store.delete_session("lead").await.unwrap());
        assert_eq!(store.team("t2").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_member_restarts_queued_and_active_together_or_not_at_all() {
        use roocode_protocol::agents::AgentState;

        let store = team().await;
        store
            .insert_agent(&crate::store::agents::tests::new_agent("c", "lead"))
            .await
            .unwrap();
        store
            .add_member(&NewMember {
                team_id: "t1",
                name: "c",
                agent_id: "c",
                agent_type: "general-purpose",
                model: "m",
                worktree: None,
                backend: "in-process",
                plan_mode_required: false,
            })
            .await
            .unwrap();
        let end = MemberEnd {
            agent_id: "c",
            agent_state: AgentState::Cancelled,
            member_state: MemberState::Stopped,
            result: Some("done"),
            error: None,
        };
        store.member_ended(&end, None).await.unwrap();
        store.restart_member("c").await.unwrap();
        let agent = store.agent("c").await.unwrap().unwrap();
        assert_eq!(
            (agent.state, agent.result, agent.notified),
            (AgentState::Queued, None, false)
        );
        assert_eq!(
            store.member("c").await.unwrap().unwrap().state,
            MemberState::Active
        );

        // The member write fails: the agent row is not left queued either.
        store.member_ended(&end, None).await.unwrap();
        sqlx::query("CREATE TRIGGER no_member_writes BEFORE UPDATE ON team_members BEGIN SELECT RAISE(ABORT, 'database is locked'); END")
            .execute(&mut *store.conn().await.unwrap())
            .await
            .unwrap();
        assert!(store.restart_member("c").await.is_err());
        let agent = store.agent("c").await.unwrap().unwrap();
        assert_eq!(agent.state, AgentState::Cancelled);
        assert_eq!(
            store.member("c").await.unwrap().unwrap().state,
            MemberState::Stopped
        );
    }

    #[tokio::test]
    async fn one_team_per_lead_unique_names_and_membership() {
        let store = team().await;
        assert!(
            store
                .create_team("t2", "beta", "lead", "", "none")
                .await
                .is_err()
        );
        let dup = store
            .add_member(&NewMember {
                team_id: "t1",
                name: "a",
                agent_id: "lead",
                agent_type: "x",
                model: "m",
                worktree: None,
                backend: "in-process",
                plan_mode_required: false,
            })
            .await;
        assert!(dup.is_err(), "a name is unique in its team");
        assert_eq!(store.team_of("lead").await.unwrap().unwrap().id, "t1");
        assert_eq!(store.team_of("b").await.unwrap().unwrap().id, "t1");
        store
            .set_member_state("a", MemberState::Idle)
            .await
            .unwrap();
        let members = store.members("t1").await.unwrap();
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].state, MemberState::Idle);
        assert!(store.delete_team("t1").await.unwrap());
        assert!(store.team_of("b").await.unwrap().is_none());
        assert!(store.session("b").await.unwrap().is_some(), "sessions stay");
    }
}
