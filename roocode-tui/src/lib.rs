//! `roocode-tui` as a library: the state and widgets of the terminal UI, kept free of
//! I/O so they can be tested on ratatui's `TestBackend` and benchmarked. The binary
//! (`main.rs`) connects them to the daemon and the terminal.
//!
//! - [`app`]: [`App`], all UI state of a terminal attached to one session, fed with
//!   events, keys, paste, mouse and ticks, returning [`Action`]s.
//! - [`picker`]: [`Picker`], the start screen choosing a session.
//! - [`rewind`]: the rewind dialog of `/rewind` and Esc Esc (turns, plan, confirm).
//! - [`export`]: `/export`'s file (its name, written atomically, never over another).
//! - [`trace_view`]: the trace view of Ctrl+T (the session's timeline, and why each
//!   tool call was allowed, denied or asked).
//! - [`agents`]: the attached session's sub-agents, live (the agents panel, Ctrl+B).
//! - [`view`]: drawing; [`markdown`], [`diff`], [`wrap`]: text to terminal lines.
//! - [`transcript`]: the conversation, with per-entry line caches.
//! - [`bench_support`]: a realistic long session for benchmarks.
//!
//! How the binary drives an [`App`]:
//! - every event of the subscription goes to [`App::on_event`] (cheap: O(1) plus the
//!   text it carries); after a reconnect, resubscribe with `since_seq =`
//!   [`App::last_seq`] (replayed events are ignored anyway);
//! - keys, bracketed pastes and mouse events (enable bracketed paste and mouse
//!   capture) go to [`App::on_key`], [`App::on_paste`], [`App::on_mouse`]; perform
//!   the [`Action`]s returned, and report failures with [`App::show_error`] and slash
//!   command results with [`App::command_output`];
//! - call [`App::on_tick`] about ten times a second, always (spinners, notices and the
//!   double Ctrl+C window count ticks); redraw after a tick while [`App::animating`];
//! - draw after changes, coalesced to at most one frame per ~16 ms; a frame renders
//!   only the entries on screen (cached per entry and width).

pub mod agents;
pub mod app;
pub mod bench_support;
pub mod completion;
pub mod dialog;
pub mod diff;
pub mod export;
pub mod hints;
pub mod input;
pub mod markdown;
pub mod panel;
pub mod picker;
pub mod rewind;
pub mod spinner;
pub mod theme;
pub mod tool_summary;
pub mod trace_view;
pub mod transcript;
pub mod view;
pub mod wrap;

#[cfg(test)]
mod test_support;

pub use app::{Action, App, Connection};
pub use picker::{Picker, PickerChoice};
