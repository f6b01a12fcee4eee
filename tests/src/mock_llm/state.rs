//! Shared state of a running mock LLM: the reply queue and fallback, the recorded
//! requests (with a counter tests can await), and the named gates (opened / reached).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::sync::watch;

use super::route::RouteMatch;
use super::script::{Rule, Script, ScriptedReply};

/// One request the server received on a model endpoint, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// URI path without the query, e.g. `/v1/messages`.
    pub path: String,
    /// Header names lowercased; repeated headers joined with `", "`.
    pub headers: BTreeMap<String, String>,
    /// The parsed JSON body, or the raw text as a JSON string when it was not JSON
    /// (`Null` when the script records raw bytes only, see [`super::Script::raw_records`]).
    pub body: Value,
    /// The body's bytes as sent (to compare requests byte for byte).
    pub raw: Vec<u8>,
    /// When its head arrived, since the mock started.
    pub at: std::time::Duration,
    /// When its head arrived, in milliseconds since the Unix epoch (to compare with times the
    /// daemon records, such as a message's `created_at`).
    pub wall_ms: i64,
}

impl RecordedRequest {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The body parsed from `raw` (for requests recorded raw only), as `body` would be.
    pub fn parse(&self) -> Value {
        serde_json::from_slice(&self.raw)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.raw).into_owned()))
    }
}

struct Queue {
    replies: VecDeque<ScriptedReply>,
    fallback: Option<ScriptedReply>,
    rules: Vec<Rule>,
    routes: Vec<RouteQueue>,
    requests: Vec<RecordedRequest>,
}

struct RouteQueue {
    when: RouteMatch,
    replies: VecDeque<ScriptedReply>,
    fallback: Option<ScriptedReply>,
}

pub(crate) struct State {
    queue: Mutex<Queue>,
    /// Requests estimated over this many input tokens are refused (400).
    pub(crate) max_input_tokens: Option<u64>,
    /// llama.cpp's `n_ctx` when the mock acts as `llama-server`.
    pub(crate) llama_n_ctx: Option<u64>,
    /// Requests are recorded without their parsed body.
    raw_records: bool,
    request_count: watch::Sender<usize>,
    opened: watch::Sender<HashSet<String>>,
    reached: watch::Sender<HashMap<String, usize>>,
    seq: AtomicU64,
    /// When the mock started (requests are timed from it).
    pub(crate) started: std::time::Instant,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    pub(crate) fn new(script: Script) -> Self {
        Self {
            queue: Mutex::new(Queue {
                replies: script.replies.into(),
                fallback: script.fallback,
                rules: script.rules,
                routes: script
                    .routes
                    .into_iter()
                    .map(|r| RouteQueue {
                        when: r.when,
                        replies: r.replies.into(),
                        fallback: r.fallback,
                    })
                    .collect(),
                requests: Vec::new(),
            }),
            max_input_tokens: script.max_input_tokens,
            llama_n_ctx: script.llama_n_ctx,
            raw_records: script.raw_records,
            request_count: watch::Sender::new(0),
            opened: watch::Sender::new(HashSet::new()),
            reached: watch::Sender::new(HashMap::new()),
            seq: AtomicU64::new(0),
            started: std::time::Instant::now(),
        }
    }

    /// Records `request`; when `pop`, atomically picks its reply: the first rule it
    /// matches, else its route's next reply, else the next queued reply, else the
    /// fallback. `None` with `pop` means
    /// the script is exhausted.
    pub(crate) fn record(&self, mut request: RecordedRequest, pop: bool) -> Option<ScriptedReply> {
        // Read before the lock: a long history takes a while, and every other request
        // would wait for it.
        let users = super::route::user_texts(&request.body);
        let mut parsed = Value::Null;
        let (reply, count) = {
            let mut queue = lock(&self.queue);
            // Rules first: a request they name by its system prompt (a compaction's
            // summary) may quote a routed agent's marker in its transcript.
            let reply = if pop {
                if let Some(rule) = queue.rules.iter().find(|r| r.matches(&request.body)) {
                    Some(rule.reply.clone())
                } else {
                    let routed = queue
                        .routes
                        .iter_mut()
                        .find(|r| r.when.matches_texts(&request.headers, &users));
                    match routed {
                        Some(route) => route.replies.pop_front().or_else(|| route.fallback.clone()),
                        None => queue.replies.pop_front().or_else(|| queue.fallback.clone()),
                    }
                }
            } else {
                None
            };
            if self.raw_records {
                // Freed after the lock is released.
                parsed = std::mem::take(&mut request.body);
            }
            queue.requests.push(request);
            (reply, queue.requests.len())
        };
        drop(parsed);
        self.request_count.send_replace(count);
        reply
    }

    /// A number unique to each answered request (ids of messages and tool calls).
    pub(crate) fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub(crate) fn push(&self, reply: ScriptedReply) {
        lock(&self.queue).replies.push_back(reply);
    }

    /// Appends `reply` to the route `when` (a new route, after the others, if none).
    pub(crate) fn push_route(&self, when: RouteMatch, reply: ScriptedReply) {
        let mut queue = lock(&self.queue);
        match queue.routes.iter_mut().find(|r| r.when == when) {
            Some(route) => route.replies.push_back(reply),
            None => queue.routes.push(RouteQueue {
                when,
                replies: VecDeque::from([reply]),
                fallback: None,
            }),
        }
    }

    pub(crate) fn set_fallback(&self, reply: Option<ScriptedReply>) {
        lock(&self.queue).fallback = reply;
    }

    pub(crate) fn remaining(&self) -> usize {
        lock(&self.queue).replies.len()
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.queue).requests.clone()
    }

    pub(crate) fn request_count(&self) -> usize {
        *self.request_count.borrow()
    }

    pub(crate) async fn wait_for_requests(&self, n: usize) {
        let mut rx = self.request_count.subscribe();
        // The sender lives as long as `self`, so this cannot fail while we borrow it.
        let _ = rx.wait_for(|count| *count >= n).await;
    }

    pub(crate) fn open_gate(&self, name: &str) {
        self.opened.send_modify(|set| {
            set.insert(name.to_owned());
        });
    }

    /// Marks that a stream reached `name`, then waits until it is opened.
    pub(crate) async fn pass_gate(&self, name: &str) {
        self.reached
            .send_modify(|map| *map.entry(name.to_owned()).or_default() += 1);
        let mut rx = self.opened.subscribe();
        let _ = rx.wait_for(|set| set.contains(name)).await;
    }

    pub(crate) async fn wait_for_gate_reached(&self, name: &str) {
        let mut rx = self.reached.subscribe();
        let _ = rx
            .wait_for(|map| map.get(name).is_some_and(|n| *n > 0))
            .await;
    }
}
