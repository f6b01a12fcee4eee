//! Agent teams (DESIGN.md §9, issue 12): long-lived teammates of a lead session that
//! talk through mailboxes and share a task list, all in SQLite (`store::teams`,
//! `store::team_tasks`, `store::mailbox`).
//!
//! Built so far: mail. [`Engine::post_mail`] stores a message for its recipients in one
//! transaction and wakes each; a recipient's turn reads its unread mail at the start of
//! every iteration, in the transaction that writes it into its context, as one
//! `<teammate-message>` block each ([`mail_text`]).

mod mail;
#[cfg(test)]
mod tests;

pub use mail::mail_text;
