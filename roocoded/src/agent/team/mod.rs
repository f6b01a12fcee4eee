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
//! - `tasks`: the shared task list's rules (who may create, claim, assign, complete,
//!   add dependencies) and who hears of a change (`task_updated` on the lead's stream;
//!   a `task_assignment` to an owner whose task was assigned or unblocked);
//!   `task_text`: how the list and its notices read.
//! - `cleanup`: deleting a team once no member is active — members stopped, each
//!   teammate's worktree removed (a branch with unmerged commits kept, said so).
//! - `info`: teams, members, tasks and mail as clients see them (`team.*`, `mailbox.*`).
//! - `backend`: where a teammate is shown (`in-process`, or a tmux pane too).
//! - `tmux`: opening a teammate's pane in the tmux of its lead's client.

pub mod backend;
mod cleanup;
mod host;
mod info;
mod life;
#[cfg(test)]
mod life_tests;
mod mail;
mod messages;
#[cfg(test)]
mod messages_tests;
mod plan;
mod shutdown;
mod spawn;
mod task_text;
mod tasks;
#[cfg(test)]
mod tasks_tests;
#[cfg(test)]
mod tests;
mod tmux;

pub use cleanup::CONVERGENCE;
pub use host::TeamLink;
pub use life::TeamBook;
pub use mail::mail_text;
pub use spawn::Joining;
