//! The CLI's view of a session's events: the shared resync-safe feed
//! ([`roocode_client::feed`]), warning once on stderr when the daemon sends an event
//! this client cannot read.

use roocode_client::{EventFeed, RpcClient};

use crate::failure::Failure;
use crate::output::err_line;

/// The events of one session, from a seq on.
pub type EventStream<'a> = EventFeed<'a>;

/// Subscribes to the events after `since_seq` (0: all).
pub async fn open<'a>(
    rpc: &'a RpcClient,
    session_id: &str,
    since_seq: u64,
) -> Result<EventStream<'a>, Failure> {
    let feed = EventFeed::open(rpc, session_id, since_seq).await?;
    Ok(feed.on_unreadable(|e| {
        err_line(&format!(
            "warning: skipped an event this client cannot read ({e})"
        ));
    }))
}
