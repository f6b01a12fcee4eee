//! `roocode-tui` as a library: the state and widgets of the terminal UI, kept free of
//! I/O so they can be tested on ratatui's `TestBackend` and benchmarked. The binary
//! (`main.rs`) connects them to the daemon and the terminal.
//!
//! - [`app`]: [`App`], all UI state of a terminal attached to one session, fed with
//!   events, keys, paste, mouse and ticks, returning [`Action`]s.
//! - [`picker`]: [`Picker`], the start screen choosing a session.
//! - [`view`]: drawing; [`markdown`], [`diff`], [`wrap`]: text to terminal lines.
//! - [`transcript`]: the conversation, with per-entry line caches.
//! - [`bench_support`]: a realistic long session for benchmarks.

pub mod app;
pub mod bench_support;
pub mod completion;
pub mod dialog;
pub mod diff;
pub mod input;
pub mod markdown;
pub mod panel;
pub mod picker;
pub mod spinner;
pub mod theme;
pub mod tool_summary;
pub mod transcript;
pub mod view;
pub mod wrap;

#[cfg(test)]
mod test_support;

pub use app::{Action, App, Connection};
pub use picker::{Picker, PickerChoice};
