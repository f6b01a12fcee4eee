//! The connection to the daemon, kept alive: connects (starting the daemon if needed),
//! follows the session through the shared resync-safe feed ([`EventFeed`]) from the
//! last seq the UI has, forwards every event, and reconnects with backoff when the
//! daemon restarts — so the screen neither loses nor duplicates a line.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use roocode_client::autostart::connect_or_start;
use roocode_client::{EventFeed, RpcClient};
use roocode_protocol::daemon::ClientInfo;
use roocode_protocol::event::Event;
use roocode_protocol::paths::Paths;
use tokio::sync::{RwLock, mpsc};

/// What the feed tells the UI.
pub enum FeedMsg {
    Event(Box<Event>),
    Connected,
    Reconnecting {
        attempt: u32,
        error: String,
    },
    /// Something changed in another session (a turn, a request): refresh the overview.
    OverviewChanged,
}

/// The current connection, shared with the code that performs user actions.
pub type SharedClient = Arc<RwLock<Option<Arc<RpcClient>>>>;

/// Who we are, for the daemon's `decided_by`.
pub fn client_info() -> ClientInfo {
    ClientInfo {
        kind: "tui".into(),
        name: "roocode-tui".into(),
        pid: std::process::id(),
    }
}

/// Runs until the UI goes away (`tx` closed).
pub async fn run(
    paths: Paths,
    session_id: String,
    mut since: u64,
    client: SharedClient,
    tx: mpsc::UnboundedSender<FeedMsg>,
) {
    let mut attempt: u32 = 0;
    loop {
        if tx.is_closed() {
            return;
        }
        let rpc = match connect_or_start(&paths, client_info()).await {
            Ok((rpc, _hello)) => Arc::new(rpc),
            Err(e) => {
                attempt += 1;
                if tx
                    .send(FeedMsg::Reconnecting {
                        attempt,
                        error: e.to_string(),
                    })
                    .is_err()
                {
                    return;
                }
                tokio::time::sleep(backoff(attempt)).await;
                continue;
            }
        };
        *client.write().await = Some(rpc.clone());
        let mut feed = match EventFeed::open(&rpc, &session_id, since).await {
            Ok(feed) => feed,
            Err(e) => {
                attempt += 1;
                let _ = tx.send(FeedMsg::Reconnecting {
                    attempt,
                    error: e.to_string(),
                });
                tokio::time::sleep(backoff(attempt)).await;
                continue;
            }
        };
        attempt = 0;
        if tx.send(FeedMsg::Connected).is_err() {
            return;
        }
        while let Some(ev) = feed.next().await {
            if tx.send(FeedMsg::Event(Box::new(ev))).is_err() {
                return;
            }
        }
        // The store fills whatever the next connection missed.
        since = feed.last_seq();
        drop(feed);
        *client.write().await = None;
        attempt += 1;
        if tx
            .send(FeedMsg::Reconnecting {
                attempt,
                error: "the daemon went away".into(),
            })
            .is_err()
        {
            return;
        }
        tokio::time::sleep(backoff(attempt)).await;
    }
}

/// 100 ms, 200 ms, 400 ms … up to 2 s between attempts.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((100u64 << attempt.min(5)).min(2000))
}

/// The working directory of a new session (`--cwd`, else the current one).
pub fn working_dir(arg: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = match arg {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    Ok(dir.canonicalize()?)
}

/// Follows `daemon.subscribe` (turns and requests of every session) over the current
/// connection and tells the UI when its overview is stale; re-follows after reconnects.
pub async fn watch_overview(client: SharedClient, tx: mpsc::UnboundedSender<FeedMsg>) {
    loop {
        if tx.is_closed() {
            return;
        }
        let rpc = client.read().await.clone();
        if let Some(rpc) = rpc
            && let Ok(mut sub) = daemon_events(&rpc).await
        {
            while let Some(Ok(_)) = sub.next().await {
                if tx.send(FeedMsg::OverviewChanged).is_err() {
                    return;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `daemon.subscribe`.
async fn daemon_events(
    rpc: &RpcClient,
) -> Result<jsonrpsee::core::client::Subscription<Event>, jsonrpsee::core::ClientError> {
    use jsonrpsee::core::client::SubscriptionClientT;
    SubscriptionClientT::subscribe(
        rpc,
        "daemon.subscribe",
        jsonrpsee::core::params::ObjectParams::new(),
        "daemon.unsubscribe",
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        assert_eq!(backoff(1), Duration::from_millis(200));
        assert_eq!(backoff(3), Duration::from_millis(800));
        assert_eq!(backoff(30), Duration::from_millis(2000));
    }
}
