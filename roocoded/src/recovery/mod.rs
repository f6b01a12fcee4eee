//! Recovery (DESIGN.md §11, issue 15): what the agent does when a step fails the way a
//! person would shrug off. A failure is classified into a [`Category`] — structurally
//! first (the LLM layer's classification of HTTP statuses and provider error types,
//! the tool layer's kinds of error), message patterns only as the LLM layer's fallback
//! — and each category has an ordered chain of strategies ([`Chain`]: retry, fall back
//! to another model, truncate, compact, remind and retry, summarise, abort), bounded by
//! a global cap of attempts per error.
//!
//! This module owns the vocabulary and the rules (categories, strategies, the default
//! chains and their configuration) and the one retry loop of calls outside the agent
//! loop ([`call_retrying`]); the turn loop runs the chains (`agent/turn/recover.rs`).

mod category;
mod chain;
pub mod retry;

pub use category::Category;
pub use chain::{Chain, ChainError, DEFAULT_MAX_TOTAL_ATTEMPTS, Position, Step, Strategy};
pub use retry::{RetryPolicy, call_retrying};
