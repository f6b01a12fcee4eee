//! Agent teams (DESIGN.md §9, issue 12): long-lived teammates of a lead session that
//! talk through mailboxes and share a task list, all in SQLite (`store::teams`,
//! `store::team_tasks`, `store::mailbox`).
//!
//! - `spawn`: an `Agent` call with `team_name` makes a teammate — a child of the lead
//!   (session kind `teammate`) planned like any sub-agent, recorded as a member.
//! - `life`: a teammate's loop ending makes it idle (its lead gets an idle notice,
//!   debounced) or stopped; a message resumes it with its full history, in a turn slot.
//! - `mail`: [`Engine::post_mail`] stores a message for its recipients in one
//!   transaction and wakes each; a recipient's turn reads its unread mail at the start
//!   of every iteration, in the transaction that writes it into its context, as one
//!   `<teammate-message>` block each ([`mail_text`]).
//! - `messages`: `SendMessage` — who the caller is (never what the input says), who `to`
//!   names (a name, `lead`, an agent id or prefix, `*`), the rules of each kind.
//! - `shutdown`: the shutdown handshake — the lead's request (its id made here), the
//!   teammate's answer; approved, it stops once its current turn ends.
//! - `plan`: plan approval — a teammate's `ExitPlanMode` becomes a request to its lead;
//!   approved, it takes the lead's mode before the answer wakes it.
//! - `host`: the [`TeamHost`](crate::tools::TeamHost) of a lead's or a teammate's calls.
//! - `cleanup`: deleting a team once no member is active.
//! - `backend`: where a teammate is shown (`in-process`, or a tmux pane too).

pub mod backend;
mod cleanup;
mod host;
mod life;
mod mail;
mod messages;
#[cfg(test)]
mod messages_tests;
mod plan;
mod shutdown;
mod spawn;
#[cfg(test)]
mod tests;

pub use host::TeamLink;
pub use life::TeamBook;
pub use mail::mail_text;
pub use spawn::Joining;
