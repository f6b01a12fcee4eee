//! Recovery inside the turn (DESIGN.md §11, `crate::recovery`): a failed model call, an
//! empty answer, a malformed tool call or an edit that did not match runs its
//! category's chain of strategies, between iterations, so that "retry" is a real
//! re-send. Each failure counts one attempt in the store (per session and category, in
//! a row for the same cause: category, tool and file), so a daemon restart continues
//! the count; the chain's position for that count says what to do, a strategy that
//! cannot help passes to the next, and every attempt is a `recovery` event. A success
//! clears the counts it settles; a genuine message of the user's clears them all.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::{EventPayload, StopReason};

use super::{Turn, TurnEnd, ended};
use crate::agent::AgentError;
use crate::agent::executor::Call;
use crate::agent::settings::TurnSettings;
use crate::config::Config;
use crate::llm::LlmError;
use crate::recovery::{Category, Chain, Position, Strategy};

/// Categories a successful model call settles (an empty answer is settled by one that
/// is not empty).
const CALL_CATEGORIES: [Category; 7] = [
    Category::RateLimited,
    Category::Overloaded,
    Category::ServerError,
    Category::Network,
    Category::Auth,
    Category::ContextOverflow,
    Category::BadRequest,
];

/// Categories of tool calls: settled by an iteration without them.
const TOOL_CATEGORIES: [Category; 2] = [Category::MalformedToolCall, Category::EditError];

/// Reminders in a row for one cause, whatever a chain says (the bound).
const MAX_REMINDERS_IN_A_ROW: u32 = 2;

/// What failed, as recovery sees it.
pub(super) struct Failure {
    pub category: Category,
    /// What makes two failures "the same": the tool and file of a call, empty for a
    /// model call.
    pub cause: String,
    /// The tool and the file its call named, for a tool's failure.
    pub tool: Option<(String, Option<String>)>,
    /// The exact message: the provider's error, the parser's or the matcher's.
    pub message: String,
    /// The `kind` of the error the turn ends with if recovery aborts.
    pub kind: String,
    pub retry_after: Option<Duration>,
    /// A context overflow that stated a smaller window than the one budgeted: the next
    /// request is built for it (layers 1–3 judge by it), which alone may fit.
    pub window_learned: Option<u64>,
}

impl Failure {
    /// A failed call of `model`; `None` for what no strategy can help with (a cancel,
    /// a configuration error).
    pub fn of_call(error: &LlmError, window_learned: Option<u64>, model: &str) -> Option<Failure> {
        let category = Category::of_llm(error)?;
        let message = match category {
            // The provider refused what it was sent: which model it was matters.
            Category::BadRequest => format!("{error} (model {model})"),
            _ => error.to_string(),
        };
        Some(Failure {
            category,
            cause: String::new(),
            tool: None,
            message,
            kind: error.kind().to_string(),
            retry_after: error.retry_after(),
            window_learned,
        })
    }

    fn empty_answer() -> Failure {
        Failure {
            category: Category::EmptyResult,
            cause: String::new(),
            tool: None,
            message: "the model's answer was empty (no text, no tool call)".into(),
            kind: Category::EmptyResult.as_str().into(),
            retry_after: None,
            window_learned: None,
        }
    }

    /// The first failure of each tool category among the calls' `failures` (one count
    /// per iteration and category).
    fn of_tools(calls: &[Call], failures: &[Option<(Category, String)>]) -> Vec<Failure> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (call, failure) in calls.iter().zip(failures) {
            let Some((category, message)) = failure else {
                continue;
            };
            if !seen.insert(*category) {
                continue;
            }
            let file = file_of(&call.input);
            let cause = match &file {
                Some(f) => format!("{} {f}", call.name),
                None => call.name.clone(),
            };
            out.push(Failure {
                category: *category,
                cause,
                tool: Some((call.name.clone(), file)),
                message: message.clone(),
                kind: category.as_str().into(),
                retry_after: None,
                window_learned: None,
            });
        }
        out
    }
}

/// The file a call names, by the parameter names of the file tools.
fn file_of(input: &serde_json::Value) -> Option<String> {
    ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input.get(k).and_then(|v| v.as_str()))
        .map(str::to_string)
}

/// The turn's side of recovery, beside the counts in the store.
#[derive(Default)]
pub(super) struct TurnRecovery {
    /// Categories the store holds a count of (read at the turn's start): only these
    /// are cleared, so a healthy turn writes nothing.
    open: BTreeSet<Category>,
    /// Counts kept here when the store cannot keep them (recovery state that cannot be
    /// written never blocks the turn).
    local: BTreeMap<Category, (String, u32)>,
    /// What was tried at each category's current error, for the abort's message.
    tried: BTreeMap<Category, Vec<String>>,
    /// When the current run of failed model calls began (`retry.max_total_secs`).
    failing_since: Option<Instant>,
    /// The model the turn switched to (`fallback_model`), for its remaining calls.
    pub fallback: Option<String>,
    /// The turn continues one that was interrupted (by the daemon or the user): its
    /// first message is the same work going on, not a fresh start, so it keeps the
    /// counts (a third recurrence after a crash is the third).
    resumes: bool,
}

mod strategies;

/// What one strategy did.
enum Applied {
    /// Done: the turn goes on.
    Done,
    /// It cannot help this time (why, for the abort's message): the next one is tried.
    Next(String),
    /// The turn ends (cancelled while waiting).
    End(TurnEnd),
}

impl Turn<'_> {
    /// Reads what recovery needs at the turn's start: which categories have a stored
    /// count, and whether the turn continues an interrupted one. Unreadable state is
    /// logged and taken as none.
    pub(super) async fn load_recovery(&mut self) {
        let store = self.engine.store();
        match store.recovery_attempts(self.id()).await {
            Ok(rows) => self.recovery.open = rows.iter().map(|r| r.category).collect(),
            Err(e) => tracing::warn!("cannot read the stored recovery attempts: {e}"),
        }
        self.recovery.resumes = match store.last_turn_end(self.id()).await {
            Ok(Some((stop, _))) => stop == StopReason::Interrupted.as_str(),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!("cannot read how the last turn ended: {e}");
                false
            }
        };
    }

    /// The turn's first delivery is over: a message delivered later is a fresh one
    /// even when the turn resumed an interrupted one (it began with a notification).
    pub(super) fn first_delivery_done(&mut self) {
        self.recovery.resumes = false;
    }

    /// A genuine message of the user's: every count starts again — unless it is the
    /// first message after an interruption, which continues the same work.
    pub(super) async fn user_spoke(&mut self) {
        if std::mem::take(&mut self.recovery.resumes) {
            return;
        }
        self.recovery.tried.clear();
        self.recovery.local.clear();
        self.recovery.failing_since = None;
        if std::mem::take(&mut self.recovery.open).is_empty() {
            return;
        }
        if let Err(e) = self.engine.store().clear_recovery_attempts(self.id()).await {
            tracing::warn!("cannot clear the recovery attempts: {e}");
        }
    }

    /// A model call answered: its failures are settled, and an empty answer's too when
    /// this one is not empty.
    pub(super) async fn call_succeeded(&mut self, empty: bool) {
        self.recovery.failing_since = None;
        let mut settled = CALL_CATEGORIES.to_vec();
        if !empty {
            settled.push(Category::EmptyResult);
        }
        self.settle(&settled).await;
    }

    /// Clears the counts of `categories` that the store holds.
    async fn settle(&mut self, categories: &[Category]) {
        let held: Vec<Category> = categories
            .iter()
            .copied()
            .filter(|c| self.recovery.open.contains(c) || self.recovery.local.contains_key(c))
            .collect();
        for c in &held {
            self.recovery.open.remove(c);
            self.recovery.local.remove(c);
            self.recovery.tried.remove(c);
        }
        if held.is_empty() {
            return;
        }
        if let Err(e) = self
            .engine
            .store()
            .clear_recovery_categories(self.id(), &held)
            .await
        {
            tracing::warn!("cannot clear recovery attempts: {e}");
        }
    }

    /// After the tools of an iteration ran: a malformed call or a missed edit runs its
    /// chain (a reminder, then an abort); a category this iteration did not repeat is
    /// settled. `Some` ends the turn.
    pub(super) async fn recover_tools(
        &mut self,
        settings: &TurnSettings<'_>,
        calls: &[Call],
        failures: &[Option<(Category, String)>],
    ) -> Result<Option<TurnEnd>, AgentError> {
        let failures = Failure::of_tools(calls, failures);
        let settled: Vec<Category> = TOOL_CATEGORIES
            .into_iter()
            .filter(|c| !failures.iter().any(|f| f.category == *c))
            .collect();
        self.settle(&settled).await;
        for failure in failures {
            if let Some(end) = self.recover(settings, failure).await? {
                return Ok(Some(end));
            }
        }
        Ok(None)
    }

    /// An answer with neither text nor a tool call: its chain (a reminder, a summary of
    /// where the task stands, an abort). `None`: the turn calls the model again.
    pub(super) async fn recover_empty(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<Option<TurnEnd>, AgentError> {
        self.recover(settings, Failure::empty_answer()).await
    }

    /// Runs `failure`'s chain from where its count says: `None` when the turn goes on,
    /// `Some` when it ends.
    pub(super) async fn recover(
        &mut self,
        settings: &TurnSettings<'_>,
        failure: Failure,
    ) -> Result<Option<TurnEnd>, AgentError> {
        let category = failure.category;
        let attempts = self.count_attempt(&failure).await;
        let chain = chain_for(&settings.config, category);
        let max_total = settings.config.recovery_max_total_attempts();
        // Attempts before this one; a strategy that cannot help moves it to the next
        // step's first attempt.
        let mut before = attempts.saturating_sub(1);
        tracing::info!(category = %category, attempts, cause = %failure.cause, "recovering");
        loop {
            let Some(position) = chain.position(before, max_total) else {
                return self.abort(&failure, attempts).await.map(Some);
            };
            let applied = match position.strategy {
                Strategy::Retry => self.retry(settings, &failure, position).await?,
                Strategy::FallbackModel => self.fall_back(settings, &failure, position).await?,
                Strategy::Truncate => self.truncate(settings, &failure, position).await?,
                Strategy::Compact => self.compact(settings, &failure, position).await?,
                Strategy::RemindAndRetry => self.remind(&failure, position).await?,
                Strategy::Summarize => self.summarize(settings, &failure, position).await?,
                Strategy::Abort => return self.abort(&failure, attempts).await.map(Some),
            };
            match applied {
                Applied::Done => return Ok(None),
                Applied::End(end) => return Ok(Some(end)),
                Applied::Next(why) => {
                    tracing::info!(strategy = position.strategy.as_str(), %why, "strategy skipped");
                    self.tried(category, why);
                    before += position.of - position.attempt + 1;
                }
            }
        }
    }

    /// Counts one more attempt at `failure` and returns the count: in the store, or
    /// here when the store fails.
    async fn count_attempt(&mut self, failure: &Failure) -> u32 {
        let recorded = self
            .engine
            .store()
            .record_recovery_attempt(
                self.id(),
                failure.category,
                &failure.cause,
                &failure.message,
            )
            .await;
        match recorded {
            Ok(n) => {
                self.recovery.open.insert(failure.category);
                n
            }
            Err(e) => {
                tracing::warn!("cannot record a recovery attempt: {e}; counting in memory");
                let entry = self
                    .recovery
                    .local
                    .entry(failure.category)
                    .or_insert_with(|| (failure.cause.clone(), 0));
                if entry.0 != failure.cause {
                    *entry = (failure.cause.clone(), 0);
                }
                entry.1 += 1;
                entry.1
            }
        }
    }

    fn tried(&mut self, category: Category, what: String) {
        self.recovery.tried.entry(category).or_default().push(what);
    }

    /// Tells the clients what recovery does now.
    async fn announce(
        &self,
        failure: &Failure,
        position: Position,
        delay: Duration,
        message: String,
    ) -> Result<(), AgentError> {
        tracing::info!(
            category = %failure.category,
            strategy = position.strategy.as_str(),
            attempt = position.attempt,
            of = position.of,
            "{message}"
        );
        self.emit(EventPayload::Recovery {
            category: failure.category.as_str().into(),
            strategy: position.strategy.as_str().into(),
            attempt: position.attempt,
            max: position.of,
            delay_ms: millis(delay),
            message,
        })
        .await
    }

    /// `abort`: the turn ends with the error and what recovery tried; the counts of its
    /// category start again (the user has been told).
    async fn abort(&mut self, failure: &Failure, attempts: u32) -> Result<TurnEnd, AgentError> {
        let category = failure.category;
        let tried = self.recovery.tried.remove(&category).unwrap_or_default();
        let what = match &failure.tool {
            Some((tool, Some(file))) => format!("{tool} of {file}: "),
            Some((tool, None)) => format!("{tool}: "),
            None => String::new(),
        };
        let error = format!("{what}{}", failure.message);
        // An error no strategy is for (auth, a refused request) says what to do itself.
        let message = match (tried.is_empty(), attempts) {
            (true, 0 | 1) => error,
            // Tried before a restart: the count is known, not what was done.
            (true, n) => format!("{error} — stopped after {n} attempts"),
            (false, n) => format!(
                "{error} — stopped after {n} attempt(s); recovery tried: {}",
                summarise_tried(&tried)
            ),
        };
        self.emit(EventPayload::Recovery {
            category: category.as_str().into(),
            strategy: Strategy::Abort.as_str().into(),
            attempt: attempts,
            max: attempts,
            delay_ms: 0,
            message: format!("{}: giving up", category.describe()),
        })
        .await?;
        self.settle(&[category]).await;
        Ok(ended(StopReason::Error, &failure.kind, message))
    }
}

/// `category`'s chain: the configured or default one; a default chain's `retry` step
/// makes `retry.max_attempts - 1` retries when that key is set (it counts sends).
fn chain_for(config: &Config, category: Category) -> Chain {
    let mut chain = config
        .recovery_chains()
        .remove(&category)
        .unwrap_or_else(|| Chain::default_for(category));
    if !config.recovery.chains.contains_key(&category)
        && let Some(sends) = config.retry.max_attempts
    {
        for step in &mut chain.steps {
            if step.strategy == Strategy::Retry {
                step.times = sends.saturating_sub(1);
            }
        }
        chain.steps.retain(|s| s.times > 0);
    }
    chain
}

/// `["retry", "retry", "no fallback…"]` as `retry ×2, no fallback…`.
fn summarise_tried(tried: &[String]) -> String {
    let mut parts: Vec<(String, u32)> = Vec::new();
    for t in tried {
        match parts.last_mut() {
            Some((last, n)) if last == t => *n += 1,
            _ => parts.push((t.clone(), 1)),
        }
    }
    parts
        .into_iter()
        .map(|(t, n)| if n > 1 { format!("{t} ×{n}") } else { t })
        .collect::<Vec<_>>()
        .join(", ")
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Whether `content` says nothing: no text and no tool call (thinking alone counts as
/// nothing, it is not shown).
pub(super) fn is_empty_answer(content: &[ContentBlock]) -> bool {
    content.iter().all(|b| match b {
        ContentBlock::Text { text } => text.trim().is_empty(),
        ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => true,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tried_steps_are_grouped_in_order() {
        let tried: Vec<String> = ["retry", "retry", "no fallback", "retry"]
            .map(String::from)
            .to_vec();
        assert_eq!(summarise_tried(&tried), "retry ×2, no fallback, retry");
    }

    #[test]
    fn retry_max_attempts_sets_the_default_retry_step() {
        let mut config = Config::default();
        let default = chain_for(&config, Category::RateLimited);
        assert_eq!(default.steps[0].times, 5);
        config.retry.max_attempts = Some(3);
        assert_eq!(chain_for(&config, Category::RateLimited).steps[0].times, 2);
        config.retry.max_attempts = Some(1);
        let steps = chain_for(&config, Category::RateLimited).steps;
        assert!(steps.iter().all(|s| s.strategy != Strategy::Retry));
        // A configured chain is taken as written.
        config.recovery.chains.insert(
            Category::RateLimited,
            Chain {
                steps: vec![crate::recovery::Step {
                    strategy: Strategy::Retry,
                    times: 7,
                }],
            },
        );
        assert_eq!(chain_for(&config, Category::RateLimited).steps[0].times, 7);
    }

    #[test]
    fn thinking_alone_is_an_empty_answer() {
        assert!(is_empty_answer(&[]));
        assert!(is_empty_answer(&[ContentBlock::text("  \n")]));
        assert!(!is_empty_answer(&[ContentBlock::text("done")]));
    }
}
