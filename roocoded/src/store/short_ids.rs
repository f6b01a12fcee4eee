//! The tails of every session id, from which the short ids people see are worked out
//! (`roocode_protocol::short_id`).

use roocode_protocol::short_id;

use super::{Store, StoreError};

impl Store {
    /// The tails of every UUID-shaped session id, sorted. One read of the primary key
    /// index: thousands of sessions take a millisecond or two.
    pub async fn session_tails(&self) -> Result<Vec<String>, StoreError> {
        let ids: Vec<(String,)> = sqlx::query_as("SELECT id FROM sessions")
            .fetch_all(&mut *self.conn().await?)
            .await?;
        let mut tails: Vec<String> = ids
            .iter()
            .filter_map(|(id,)| short_id::tail(id))
            .map(str::to_owned)
            .collect();
        tails.sort_unstable();
        Ok(tails)
    }
}
