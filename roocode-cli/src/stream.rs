//! A session's event stream that survives resyncs: when a subscription ends with
//! `resync {last_seq}` (or ends without one while the connection lives), it
//! resubscribes transparently and drops events already delivered, so the caller sees
//! every stored event once, in order. `None` means the daemon went away.

use std::time::Duration;

use jsonrpsee::core::client::Subscription;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::client::RpcClient;
use roocode_protocol::event::{Event, EventPayload};

use crate::failure::Failure;
use crate::output::err_line;

/// Resubscriptions in a row that delivered nothing new before giving up.
const MAX_FRUITLESS: u32 = 3;

/// The events of one session, from a seq on.
pub struct EventStream<'a> {
    rpc: &'a RpcClient,
    session_id: String,
    sub: Option<Subscription<Event>>,
    /// Seq of the last stored event delivered (or the starting point).
    last_seq: u64,
    /// Where a `resync` asked to resume, for the next resubscription.
    resync_from: Option<u64>,
    fruitless: u32,
    warned_unknown: bool,
}

impl<'a> EventStream<'a> {
    /// Subscribes to the events after `since_seq` (0: all).
    pub async fn open(
        rpc: &'a RpcClient,
        session_id: &str,
        since_seq: u64,
    ) -> Result<EventStream<'a>, Failure> {
        let sub = rpc
            .subscribe_events(session_id.to_owned(), Some(since_seq))
            .await?;
        Ok(EventStream {
            rpc,
            session_id: session_id.to_owned(),
            sub: Some(sub),
            last_seq: since_seq,
            resync_from: None,
            fruitless: 0,
            warned_unknown: false,
        })
    }

    /// The next event (snapshots of every subscription included, resyncs handled);
    /// `None` once the daemon has gone away.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            let Some(sub) = self.sub.as_mut() else {
                if !self.resubscribe().await {
                    return None;
                }
                continue;
            };
            match sub.next().await {
                Some(Ok(ev)) => match &ev.payload {
                    EventPayload::Resync { last_seq } => {
                        self.resync_from = Some(*last_seq);
                        self.end_subscription().await;
                    }
                    EventPayload::Snapshot { .. } => return Some(ev),
                    _ if ev.seq <= self.last_seq => {}
                    _ => {
                        self.last_seq = ev.seq;
                        self.fruitless = 0;
                        return Some(ev);
                    }
                },
                Some(Err(e)) => {
                    // An event of a newer protocol: go on without it.
                    if !self.warned_unknown {
                        self.warned_unknown = true;
                        err_line(&format!(
                            "warning: skipped an event this client cannot read ({e})"
                        ));
                    }
                }
                None => {
                    self.sub = None;
                    if !self.rpc.is_connected() {
                        return None;
                    }
                }
            }
        }
    }

    async fn end_subscription(&mut self) {
        if let Some(sub) = self.sub.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), sub.unsubscribe()).await;
        }
    }

    /// Opens a new subscription after the last delivered event; false when the daemon
    /// is gone or keeps ending subscriptions without delivering anything.
    async fn resubscribe(&mut self) -> bool {
        if !self.rpc.is_connected() || self.fruitless >= MAX_FRUITLESS {
            return false;
        }
        if self.fruitless > 0 {
            tokio::time::sleep(Duration::from_millis(100 * u64::from(self.fruitless))).await;
        }
        self.fruitless += 1;
        let since = self
            .resync_from
            .map_or(self.last_seq, |s| s.min(self.last_seq));
        match self
            .rpc
            .subscribe_events(self.session_id.clone(), Some(since))
            .await
        {
            Ok(sub) => {
                self.sub = Some(sub);
                self.resync_from = None;
                true
            }
            Err(_) => false,
        }
    }
}
