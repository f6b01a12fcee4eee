//! Sub-agents as clients see them: `agent.list` (of a session tree, or all) and
//! `agent.get`, with their state, parent, type, elapsed time, tokens and cost.

use roocode_protocol::agents::AgentInfo;
use roocode_protocol::session::SessionKind;

use crate::agent::{AgentError, Engine};
use crate::clock;
use crate::store::{AgentRow, SessionRow};

fn info(row: &AgentRow, session: Option<&SessionRow>, with_result: bool) -> AgentInfo {
    let usage = session.map(SessionRow::usage).unwrap_or_default();
    let end = row.ended_at.unwrap_or_else(clock::now_ms);
    AgentInfo {
        id: row.id.clone(),
        short_id: String::new(),
        name: row.name.clone(),
        agent_type: row.agent_type.clone(),
        parent_id: row.parent_id.clone(),
        description: row.description.clone(),
        state: row.state,
        background: row.background,
        started_at: clock::rfc3339(row.started_at),
        elapsed_ms: end.saturating_sub(row.started_at).max(0) as u64,
        tokens: usage.input_tokens + usage.output_tokens,
        cost_usd: usage.cost_usd,
        tool_calls: row.tool_calls,
        result: if with_result {
            row.result.clone()
        } else {
            None
        },
        error: row.error.clone(),
        branch: row.branch.clone(),
    }
}

impl Engine {
    /// The sub-agents of `session`'s tree (any session of it, by id or prefix), or of
    /// every session; oldest first.
    pub async fn agent_infos(&self, session: Option<&str>) -> Result<Vec<AgentInfo>, AgentError> {
        let rows = match session {
            Some(given) => {
                let row = self.resolve(given).await?;
                let root = match (row.kind, &row.parent_session_id) {
                    (SessionKind::Main, _) | (_, None) => row.id.clone(),
                    (_, Some(parent)) => parent.clone(),
                };
                self.store.children(&root).await?
            }
            None => self.store.all_agents().await?,
        };
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let session = self.store.session(&row.id).await?;
            out.push(info(row, session.as_ref(), false));
        }
        self.with_agent_short_ids(out).await
    }

    /// One sub-agent (by id or unique prefix), with its result.
    pub async fn agent_info(&self, given: &str) -> Result<AgentInfo, AgentError> {
        let session = self.resolve(given).await?;
        let Some(row) = self.store.agent(&session.id).await? else {
            return Err(AgentError::Invalid(format!(
                "{given} is a main session, not a sub-agent: roocode-cli agents lists the agents"
            )));
        };
        let mut infos = self
            .with_agent_short_ids(vec![info(&row, Some(&session), true)])
            .await?;
        infos
            .pop()
            .ok_or_else(|| AgentError::Invalid(format!("no agent has the id {given}")))
    }

    /// `infos` with their short ids: an agent's id is its session's, so the short form
    /// is the one `sessions` shows (one read of every id's tail for the whole list).
    async fn with_agent_short_ids(
        &self,
        mut infos: Vec<AgentInfo>,
    ) -> Result<Vec<AgentInfo>, AgentError> {
        if infos.is_empty() {
            return Ok(infos);
        }
        let tails = self.store.session_tails().await?;
        for info in &mut infos {
            info.short_id = roocode_protocol::short_id::shortest_unique(&info.id, &tails);
        }
        Ok(infos)
    }
}
