//! `session.subscribe`: a snapshot, the replay of the stored log after `since_seq`,
//! then live events — with no gap and no duplicate.
//!
//! The live receiver is taken *before* the store is read, and live events at or below
//! the last replayed seq are dropped. A subscriber that falls more than the live
//! buffer behind gets `resync {last_seq}` and the end of its stream; it resubscribes
//! from there and the store fills the gap. A slow client never slows the agent.

use std::sync::Arc;

use jsonrpsee::core::SubscriptionResult;
use jsonrpsee::{PendingSubscriptionSink, SubscriptionSink};
use roocode_protocol::event::{Event, EventPayload};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::Handler;

/// Why a subscription ended early (reported to the client by jsonrpsee).
type StringError = String;
use super::errors::to_rpc;
use crate::clock;

const REPLAY_PAGE: u32 = 500;

pub async fn subscribe(
    h: &Handler,
    pending: PendingSubscriptionSink,
    session_id: String,
    since_seq: Option<u64>,
) -> SubscriptionResult {
    let engine = &h.0.engine;
    let row = match engine.resolve(&session_id).await {
        Ok(row) => row,
        Err(e) => {
            pending.reject(to_rpc(e)).await;
            return Ok(());
        }
    };
    let id = row.id.clone();
    // Subscribe before reading the store: whatever is stored later is also published.
    let mut live = engine.events().subscribe(&id);
    // An attached client: no idle notification while it follows the session.
    let attached = engine.attach_client(&id);
    let result = serve(h, pending, &id, since_seq.unwrap_or(0), &mut live).await;
    drop(live);
    engine.events().release(&id);
    drop(attached);
    result
}

/// The snapshot, then the log.
async fn serve(
    h: &Handler,
    pending: PendingSubscriptionSink,
    id: &str,
    since: u64,
    live: &mut broadcast::Receiver<Arc<Event>>,
) -> SubscriptionResult {
    let sink = pending.accept().await?;
    let (info, waiting) = h.0.engine.snapshot(id).await.map_err(to_rpc)?;
    let snapshot = EventPayload::Snapshot {
        session: Box::new(info),
        pending: waiting,
    };
    send(&sink, &per_subscription(id, snapshot)).await?;
    follow(h, &sink, id, since, live).await
}

/// Replays the stored log after `last`, then forwards live events until the client
/// leaves, falls behind (resync) or the session's log closes.
async fn follow(
    h: &Handler,
    sink: &SubscriptionSink,
    id: &str,
    mut last: u64,
    live: &mut broadcast::Receiver<Arc<Event>>,
) -> SubscriptionResult {
    last = replay(h, sink, id, last, None).await?;
    loop {
        tokio::select! {
            r = live.recv() => match r {
                Ok(ev) => {
                    if ev.seq <= last {
                        continue;
                    }
                    if ev.seq > last + 1 {
                        // Cannot happen while events are stored before they are
                        // published, but the store is the truth: fill from it.
                        replay(h, sink, id, last, Some(ev.seq - 1)).await?;
                    }
                    send(sink, &ev).await?;
                    last = ev.seq;
                }
                Err(RecvError::Lagged(n)) => {
                    tracing::info!(session = %id, skipped = n, "subscriber fell behind; asking it to re-sync");
                    send(sink, &per_subscription(id, EventPayload::Resync { last_seq: last })).await?;
                    return Ok(());
                }
                Err(RecvError::Closed) => return Ok(()),
            },
            _ = sink.closed() => return Ok(()),
        }
    }
}

/// Sends stored events after `after` (up to `upto`), returns the last seq sent. The
/// stored JSON goes out as it is (see `WireEvent`): no decoding, no re-encoding.
async fn replay(
    h: &Handler,
    sink: &SubscriptionSink,
    id: &str,
    mut after: u64,
    upto: Option<u64>,
) -> Result<u64, StringError> {
    let store = h.0.engine.store();
    loop {
        let page = store
            .wire_events_after(id, after, REPLAY_PAGE)
            .await
            .map_err(|e| e.to_string())?;
        let full = page.len() == REPLAY_PAGE as usize;
        for ev in page {
            if upto.is_some_and(|u| ev.seq > u) {
                return Ok(after);
            }
            sink.send(ev.json).await.map_err(|e| e.to_string())?;
            after = ev.seq;
        }
        if !full {
            return Ok(after);
        }
    }
}

fn per_subscription(session_id: &str, payload: EventPayload) -> Event {
    Event {
        seq: 0,
        ts: clock::rfc3339(clock::now_ms()),
        session_id: session_id.to_string(),
        agent_id: session_id.to_string(),
        payload,
    }
}

async fn send(sink: &SubscriptionSink, ev: &Event) -> Result<(), StringError> {
    let raw = serde_json::value::to_raw_value(ev).map_err(|e| e.to_string())?;
    sink.send(raw).await.map_err(|e| e.to_string())?;
    Ok(())
}
