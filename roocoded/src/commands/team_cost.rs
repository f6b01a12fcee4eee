//! The team part of `/cost`: the model calls of a team — its lead's tree (the lead, its
//! sub-agents and its teammates, which are its children) and the helpers each teammate
//! started (children of the teammate, which the lead's tree does not reach) — with the
//! agents that count as teammates, so `cost.rs` can say what the lead spent and what
//! its teammates did.

use std::collections::{HashMap, HashSet};

use crate::agent::{AgentError, Engine};
use crate::store::CallTotals;

/// A team's calls, from the store.
pub struct TeamTotals {
    pub name: String,
    pub lead_session_id: String,
    pub members: usize,
    /// Every member and every helper a member started.
    pub teammate_agents: HashSet<String>,
    /// Every call of the team, the lead's tree first.
    pub totals: Vec<CallTotals>,
    /// How the members' helpers are shown: `Explore (1a2b3c4d) via builder`.
    pub labels: HashMap<String, String>,
}

/// The team `session_id` leads or belongs to, with its calls; `None` outside a team.
pub async fn team_totals(
    engine: &Engine,
    session_id: &str,
) -> Result<Option<TeamTotals>, AgentError> {
    let store = engine.store();
    let Some(team) = store.team_of(session_id).await? else {
        return Ok(None);
    };
    let members = store.members(&team.id).await?;
    let mut totals = store.call_totals(&team.lead_session_id).await?;
    let mut teammate_agents = HashSet::new();
    let mut labels = HashMap::new();
    for m in &members {
        teammate_agents.insert(m.agent_id.clone());
        // Its own calls are in the lead's tree when it is the lead's child.
        let counted = totals.iter().any(|t| t.agent_id == m.agent_id);
        for t in store.call_totals(&m.agent_id).await? {
            if t.agent_id != m.agent_id {
                teammate_agents.insert(t.agent_id.clone());
                totals.push(t);
            } else if !counted {
                totals.push(t);
            }
        }
        for helper in store.children(&m.agent_id).await? {
            let tail = roocode_protocol::short_id::tail(&helper.id).unwrap_or(&helper.id);
            let short: String = tail.chars().take(8).collect();
            labels.insert(
                helper.id.clone(),
                format!("{} ({short}) via {}", helper.name, m.name),
            );
        }
    }
    Ok(Some(TeamTotals {
        name: team.name,
        lead_session_id: team.lead_session_id,
        members: members.len(),
        teammate_agents,
        totals,
        labels,
    }))
}
