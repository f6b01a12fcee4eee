//! The model context: what is sent to the provider, and the rules that keep it valid.
//! [`chain`] validates and repairs tool_use/tool_result pairing.

pub mod chain;
