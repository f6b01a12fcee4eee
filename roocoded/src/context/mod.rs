//! The model context: what is sent to the provider, and the rules that keep it valid.
//! [`chain`] validates and repairs tool_use/tool_result pairing; [`budget`] counts
//! tokens against the window; [`large_results`] (layer 1) spills large tool outputs to
//! disk; [`stale`] (layer 2) replaces old tool results with short stubs.

pub mod budget;
pub mod chain;
mod chain_props;
pub mod compact;
pub mod large_results;
pub mod stale;
