//! Short ids on the sessions the engine hands out: every `SessionInfo` leaving `Agents`
//! carries the shortest unique form of its id (`roocode_protocol::short_id`), worked
//! out against every session in the store, for clients to show.

use roocode_protocol::session::SessionInfo;
use roocode_protocol::short_id;

use super::{AgentError, Agents};

impl Agents {
    /// `infos` with their short ids filled in.
    pub(super) async fn with_short_ids(
        &self,
        mut infos: Vec<SessionInfo>,
    ) -> Result<Vec<SessionInfo>, AgentError> {
        if infos.is_empty() {
            return Ok(infos);
        }
        let tails = self.store.session_tails().await?;
        for info in &mut infos {
            info.short_id = short_id::shortest_unique(&info.id, &tails);
        }
        Ok(infos)
    }

    /// `info` with its short id filled in.
    pub(super) async fn with_short_id(&self, info: SessionInfo) -> Result<SessionInfo, AgentError> {
        let mut one = self.with_short_ids(vec![info]).await?;
        one.pop()
            .ok_or_else(|| AgentError::Invalid("no session to name".into()))
    }
}
