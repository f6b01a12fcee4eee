//! Finding sessions: by id or unique id prefix, by project, and with the short id every
//! `SessionInfo` leaving the engine carries (the shortest unique form of its id,
//! `roocode_protocol::short_id`, worked out against every session in the store).

use std::path::Path;

use roocode_protocol::session::SessionInfo;
use roocode_protocol::short_id;

use super::AgentError;
use crate::store::{SessionRow, Store};

/// The engine's view of the stored sessions.
#[derive(Clone)]
pub struct Sessions {
    store: Store,
}

impl Sessions {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Finds a session by id or unique id prefix.
    pub async fn resolve(&self, id_or_prefix: &str) -> Result<SessionRow, AgentError> {
        if let Some(row) = self.store.session(id_or_prefix).await? {
            return Ok(row);
        }
        let ids = self.store.session_ids_with_prefix(id_or_prefix, 5).await?;
        match ids.as_slice() {
            [] => Err(AgentError::NotFound(id_or_prefix.to_string())),
            [one] => self
                .store
                .session(one)
                .await?
                .ok_or_else(|| AgentError::NotFound(id_or_prefix.to_string())),
            many => Err(AgentError::Ambiguous(
                id_or_prefix.to_string(),
                many.join(", "),
            )),
        }
    }

    /// The session's state, with its short id.
    pub async fn info(&self, id: &str) -> Result<SessionInfo, AgentError> {
        self.with_short_id(self.resolve(id).await?.to_info()).await
    }

    /// Sessions by last activity; `dir` (any directory) filters by its project root;
    /// main sessions only unless `all`.
    pub async fn list(
        &self,
        dir: Option<&str>,
        limit: u32,
        all: bool,
    ) -> Result<Vec<SessionInfo>, AgentError> {
        let root = dir.map(|d| crate::project::root(Path::new(d)).display().to_string());
        let rows = self
            .store
            .list_sessions(root.as_deref(), limit, all)
            .await?;
        self.with_short_ids(rows.iter().map(SessionRow::to_info).collect())
            .await
    }

    /// (sessions, running turns).
    pub async fn counts(&self) -> Result<(u64, u64), AgentError> {
        Ok((
            self.store.count_sessions().await?,
            self.store.count_running_turns().await?,
        ))
    }

    /// `infos` with their short ids filled in.
    pub async fn with_short_ids(
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
    pub async fn with_short_id(&self, info: SessionInfo) -> Result<SessionInfo, AgentError> {
        let mut one = self.with_short_ids(vec![info]).await?;
        one.pop()
            .ok_or_else(|| AgentError::Invalid("no session to name".into()))
    }
}
