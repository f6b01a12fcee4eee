//! A session's event feed that survives resyncs: it subscribes after a seq, and when a
//! subscription ends with `resync {last_seq}`, ends without one while the connection
//! lives, or skips seqs ([`crate::sequence`]), it resubscribes after the last event
//! delivered and drops what was delivered already — so the caller sees every stored
//! event once, in order, plus each subscription's `snapshot`. `None` means the
//! connection is gone (or the daemon keeps ending subscriptions without delivering
//! anything); a client that reconnects opens a new feed after [`EventFeed::last_seq`].
//! Events are decoded with [`crate::wire::decode_event`] (tolerant of the duplicate
//! `agent_id` key of the sub-agent events).

use std::time::Duration;

use jsonrpsee::core::ClientError;
use jsonrpsee::core::client::{Subscription, SubscriptionClientT};
use jsonrpsee::core::params::ObjectParams;
use roocode_protocol::event::{Event, EventPayload};
use serde_json::Value;

use crate::connect::RpcClient;
use crate::sequence::{Sequence, Verdict};

/// Resubscriptions in a row that delivered nothing new before giving up.
const MAX_FRUITLESS: u32 = 3;
/// How long to wait for the daemon to confirm an unsubscription.
const UNSUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Told of the first event this client cannot read (a newer daemon's); the feed goes
/// on without it.
pub type OnUnreadable<'a> = Box<dyn FnMut(&serde_json::Error) + Send + 'a>;

/// The events of one session, from a seq on.
pub struct EventFeed<'a> {
    rpc: &'a RpcClient,
    session_id: String,
    sub: Option<Subscription<Value>>,
    seq: Sequence,
    /// Where a `resync` asked to resume, for the next resubscription.
    resync_from: Option<u64>,
    fruitless: u32,
    on_unreadable: Option<OnUnreadable<'a>>,
}

impl<'a> EventFeed<'a> {
    /// Subscribes to the events after `since_seq` (0: all).
    pub async fn open(
        rpc: &'a RpcClient,
        session_id: &str,
        since_seq: u64,
    ) -> Result<EventFeed<'a>, ClientError> {
        let sub = subscribe(rpc, session_id, since_seq).await?;
        Ok(EventFeed {
            rpc,
            session_id: session_id.to_owned(),
            sub: Some(sub),
            seq: Sequence::after(since_seq),
            resync_from: None,
            fruitless: 0,
            on_unreadable: None,
        })
    }

    /// Calls `f` for the first event this client cannot decode (once per feed).
    pub fn on_unreadable(mut self, f: impl FnMut(&serde_json::Error) + Send + 'a) -> Self {
        self.on_unreadable = Some(Box::new(f));
        self
    }

    /// Seq of the last stored event delivered (or where the feed started).
    pub fn last_seq(&self) -> u64 {
        self.seq.last_seq()
    }

    /// The next event (the snapshot of every subscription included, resyncs and
    /// duplicates handled); `None` once the connection is gone.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            let Some(sub) = self.sub.as_mut() else {
                if !self.resubscribe().await {
                    return None;
                }
                continue;
            };
            let next = sub
                .next()
                .await
                .map(|r| r.and_then(crate::wire::decode_event));
            match next {
                Some(Ok(ev)) => {
                    if let EventPayload::Resync { last_seq } = ev.payload {
                        self.resync_from = Some(last_seq);
                        self.end_subscription().await;
                        continue;
                    }
                    match self.seq.check(&ev) {
                        Verdict::Deliver => {
                            if !ev.payload.is_per_subscription() {
                                self.fruitless = 0;
                            }
                            return Some(ev);
                        }
                        Verdict::Duplicate => {}
                        Verdict::Gap { .. } => self.end_subscription().await,
                    }
                }
                Some(Err(e)) => {
                    if let Some(mut f) = self.on_unreadable.take() {
                        f(&e);
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
            let _ = tokio::time::timeout(UNSUBSCRIBE_TIMEOUT, sub.unsubscribe()).await;
        }
    }

    /// Opens a new subscription after the last delivered event; false when the
    /// connection is gone or the daemon keeps ending subscriptions without delivering
    /// anything.
    async fn resubscribe(&mut self) -> bool {
        if !self.rpc.is_connected() || self.fruitless >= MAX_FRUITLESS {
            return false;
        }
        if self.fruitless > 0 {
            tokio::time::sleep(Duration::from_millis(100 * u64::from(self.fruitless))).await;
        }
        self.fruitless += 1;
        let last = self.seq.last_seq();
        let since = self.resync_from.take().map_or(last, |s| s.min(last));
        match subscribe(self.rpc, &self.session_id, since).await {
            Ok(sub) => {
                self.sub = Some(sub);
                true
            }
            Err(_) => false,
        }
    }
}

/// `session.subscribe` after `since_seq`, each event as the JSON the daemon sent.
async fn subscribe(
    rpc: &RpcClient,
    session_id: &str,
    since_seq: u64,
) -> Result<Subscription<Value>, ClientError> {
    let mut params = ObjectParams::new();
    params.insert("session_id", session_id)?;
    params.insert("since_seq", since_seq)?;
    rpc.subscribe("session.subscribe", params, "session.unsubscribe")
        .await
}
