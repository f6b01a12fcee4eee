//! Talking to the world's daemon directly: an RPC connection, and following a session's
//! event stream from its start until a condition holds (bounded by [`PATIENCE`]).

use roocode_protocol::api::SessionApiClient;
use roocode_protocol::daemon::ClientInfo;
use roocode_protocol::event::Event;

use super::{PATIENCE, World};

/// A connection to the world's daemon (which must be running).
pub async fn rpc(w: &World) -> roocode_client::RpcClient {
    let socket = w.home.path().join("run/roocoded.sock");
    let me = ClientInfo {
        kind: "test".into(),
        name: "e2e".into(),
        pid: std::process::id(),
    };
    roocode_client::connect(&socket, me).await.unwrap().0
}

/// The session's events from its first, read until `done` says enough.
pub async fn events_until(
    w: &World,
    session_id: &str,
    done: impl Fn(&[Event]) -> bool,
) -> Vec<Event> {
    let rpc = rpc(w).await;
    let mut sub = rpc
        .subscribe_events(session_id.to_string(), Some(0))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let read = async {
        while !done(&seen) {
            match sub.next().await {
                Some(Ok(ev)) => seen.push(ev),
                other => panic!("the stream ended: {other:?}"),
            }
        }
    };
    if tokio::time::timeout(PATIENCE, read).await.is_err() {
        let kinds: Vec<&str> = seen.iter().map(|e| e.payload.kind()).collect();
        panic!("gave up waiting; saw {kinds:?}");
    }
    seen
}

/// How many of `events` are of `kind` (its wire name).
pub fn count(events: &[Event], kind: &str) -> usize {
    events.iter().filter(|e| e.payload.kind() == kind).count()
}

/// The task notifications among `events` (other injections — the skill listing, hook
/// corrections — are not).
pub fn notifications(events: &[Event]) -> usize {
    events.iter().filter(|e| is_notification(e)).count()
}

/// Whether `event` delivered a task notification.
pub fn is_notification(event: &Event) -> bool {
    matches!(
        &event.payload,
        roocode_protocol::event::EventPayload::Injected { kind, .. } if kind == "task_notification"
    )
}

/// The parent has read `n` task notifications and finished reacting to them (its last
/// event is the end of a turn).
pub fn notified(n: usize) -> impl Fn(&[Event]) -> bool {
    move |events: &[Event]| {
        notifications(events) >= n
            && events
                .last()
                .is_some_and(|e| e.payload.kind() == "turn_completed")
    }
}
