//! `roocode-cli rewind SESSION [--to N] [--files|--conversation|--both] [--yes]
//! [--overwrite-conflicts] [--json]`: puts the workspace and/or the conversation back as
//! they were before a turn (default: the last turn not yet rewound), undoing it and
//! every later one.
//!
//! A rewind is asked of the daemon twice. First the plan (`apply: false`), printed on
//! stdout: each file with its action and diff, the conflicts (files someone else
//! changed since, kept unless `--overwrite-conflicts` or the user says so), what the
//! snapshots cannot restore, the messages the conversation loses and the prompt that
//! goes with them. A plan that changes nothing ends there (exit 0). Then, once
//! confirmed — `--yes`, or `Rewind? [y/N]` on a terminal, plus a second question when
//! there are conflicts — the same plan applied, with the plan's workspace id so that a
//! tree changed meanwhile is refused rather than rewound blind; what was done is
//! printed, and the dropped prompt, to send again. Without `--yes` and without a
//! terminal it refuses (exit 2); declining exits 1, as does a file that could not be
//! put back. `--json` prints the applied plan as JSON with `--yes`, and without it only
//! the plan (a dry run that never asks).
//!
//! Where stdout may be coloured ([`crate::color`]), the plan's diffs are: added lines
//! green, removed lines red, conflicts yellow.

use clap::Args;
use roocode_client::rewind::{self as shown, Rewound};
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::rewind::{RewindParams, RewindPlan, RewindScope};

use crate::color::{Style, Styled};
use crate::failure::{Failure, UsageError};
use crate::output::{Sink, Stdio, out_line};
use crate::session_cmds;
use crate::terminal::TerminalInput;

/// Arguments of `rewind`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("scope").multiple(false))]
pub struct RewindArgs {
    /// The session (its short id as `sessions` shows it, the full id, or a unique prefix of it).
    pub id: String,
    /// The turn to undo, with every later one, numbered from 1 (default: the last
    /// turn not yet rewound).
    #[arg(long, value_name = "N")]
    pub to: Option<u32>,
    /// Put back the files only; the conversation keeps the turns.
    #[arg(long, group = "scope")]
    pub files: bool,
    /// Cut the conversation only; the files stay as they are.
    #[arg(long, group = "scope")]
    pub conversation: bool,
    /// Both (the default).
    #[arg(long, group = "scope")]
    pub both: bool,
    /// Rewind without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Also put back the files someone else changed since (otherwise kept).
    #[arg(long)]
    pub overwrite_conflicts: bool,
    /// Print JSON: with --yes the applied plan, without it the plan only (nothing changes).
    #[arg(long)]
    pub json: bool,
}

impl RewindArgs {
    fn scope(&self) -> RewindScope {
        if self.files {
            RewindScope::Files
        } else if self.conversation {
            RewindScope::Conversation
        } else {
            RewindScope::Both
        }
    }
}

/// What the user typed at a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Yes,
    No,
    /// Neither: ask again.
    Again,
}

/// `y`/`yes` → yes; Enter, `n`/`no` or the end of input → no (the default).
fn answer(line: Option<&str>) -> Answer {
    let Some(line) = line else {
        return Answer::No;
    };
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Answer::Yes,
        "" | "n" | "no" => Answer::No,
        _ => Answer::Again,
    }
}

/// Asks `question` on stderr until the user answers yes or no.
async fn ask(term: &mut TerminalInput, sink: &mut dyn Sink, question: &str) -> bool {
    loop {
        term.prepare();
        sink.prompt(question);
        let line = term.next().await;
        sink.input_received();
        match answer(line.line.as_deref()) {
            Answer::Yes => return true,
            Answer::No => return false,
            Answer::Again => sink.err_line("  type y or n (Enter: no)"),
        }
    }
}

/// Runs `rewind`; returns the exit status.
pub async fn run(args: RewindArgs) -> anyhow::Result<i32> {
    let (conn, session) = session_cmds::resolve(&args.id).await?;
    let preview = RewindParams {
        session_id: session.id.clone(),
        to: args.to,
        scope: args.scope(),
        apply: false,
        workspace: None,
        overwrite_conflicts: false,
    };
    let plan = conn.rpc.rewind(preview).await.map_err(Failure::from)?;
    let mut sink = Stdio::new();
    if args.json && (!args.yes || shown::is_noop(&plan)) {
        out_line(&serde_json::to_string_pretty(&plan)?);
        return Ok(0);
    }
    if !args.json {
        sink.out_styled(&plan_text(&plan, session.shown_id()));
    }
    if shown::is_noop(&plan) {
        sink.err_line("nothing to rewind: the plan changes no file and no message");
        return Ok(0);
    }
    let overwrite = if args.yes {
        args.overwrite_conflicts
    } else {
        if !TerminalInput::available() || !TerminalInput::is_foreground() {
            return Err(UsageError(
                "rewind asks before it changes anything, and there is no terminal to ask on: add --yes to rewind without asking (--json without --yes prints the plan only)".into(),
            )
            .into());
        }
        let mut term = TerminalInput::default();
        if !ask(&mut term, &mut sink, "Rewind? [y/N] ").await {
            sink.err_line("not rewound: nothing was changed");
            return Ok(1);
        }
        let conflicts = shown::conflicts(&plan) as u64;
        if conflicts > 0 && !args.overwrite_conflicts {
            let question = format!(
                "Overwrite {} someone else changed since (marked conflict above)? [y/N] ",
                shown::plural(conflicts, "file", "files")
            );
            ask(&mut term, &mut sink, &question).await
        } else {
            args.overwrite_conflicts
        }
    };
    let apply = RewindParams {
        session_id: session.id.clone(),
        // The turn previewed, even if another turn ran meanwhile.
        to: Some(plan.turn),
        scope: plan.scope,
        apply: true,
        workspace: Some(plan.workspace.clone()),
        overwrite_conflicts: overwrite,
    };
    let applied = conn.rpc.rewind(apply).await.map_err(Failure::from)?;
    if args.json {
        out_line(&serde_json::to_string_pretty(&applied)?);
    } else {
        sink.out(&done_text(&applied, session.shown_id()));
    }
    Ok(if applied.refused.is_empty() { 0 } else { 1 })
}

/// Indentation of a diff under its file.
const DIFF_INDENT: &str = "      ";

/// The style of a line of a unified diff.
fn diff_style(line: &str) -> Option<Style> {
    if line.starts_with("+++") || line.starts_with("---") {
        Some(Style::DiffFile)
    } else if line.starts_with("@@") {
        Some(Style::Hunk)
    } else if line.starts_with('+') {
        Some(Style::Added)
    } else if line.starts_with('-') {
        Some(Style::Removed)
    } else {
        None
    }
}

/// The plan as the user reads it before confirming, its diffs and conflicts styled.
fn plan_text(plan: &RewindPlan, shown_id: &str) -> Styled {
    let mut out = Styled::default();
    out.push(format!(
        "Rewind of session {shown_id} to before {} ({})\n",
        shown::undone_turns(plan.turn, plan.last_turn),
        shown::scope_name(plan.scope)
    ));
    if plan.scope.files() {
        if plan.files.is_empty() {
            out.push("\nFiles: none to put back\n");
        } else {
            out.push(format!("\nFiles ({}):\n", plan.files.len()));
        }
        for f in &plan.files {
            out.push(format!(
                "  {:<8} {}\n",
                shown::action_word(f.action),
                f.path
            ));
            if let Some(why) = &f.conflict {
                out.push("           ");
                out.push_styled(
                    Style::Conflict,
                    format!("conflict: {why}; kept unless you choose to overwrite it"),
                );
                out.push("\n");
            }
            if let Some(diff) = f.diff.as_deref().filter(|d| !d.trim().is_empty()) {
                for line in diff.trim_end_matches('\n').lines() {
                    out.push(DIFF_INDENT);
                    match diff_style(line) {
                        Some(style) => out.push_styled(style, line),
                        None => out.push(line),
                    }
                    out.push("\n");
                }
            }
        }
        if !plan.not_restorable.is_empty() {
            out.push(format!(
                "\nCannot be restored ({}), the snapshots do not hold them:\n",
                plan.not_restorable.len()
            ));
            for n in &plan.not_restorable {
                out.push(format!("  {}: {}\n", n.path, n.why));
            }
        }
        for note in &plan.notes {
            out.push(format!("\nNote: {note}\n"));
        }
    } else {
        out.push("\nFiles: left as they are (--conversation)\n");
    }
    if plan.scope.conversation() {
        if plan.messages_removed == 0 {
            out.push("\nConversation: nothing to remove\n");
        } else {
            out.push(format!(
                "\nConversation: {} removed",
                shown::plural(plan.messages_removed, "message", "messages")
            ));
            if plan.prompt.trim().is_empty() {
                out.push("\n");
            } else {
                out.push(", with the prompt that began the turn:\n");
                out.push(quoted(&plan.prompt));
            }
        }
    } else {
        out.push("\nConversation: kept (--files)\n");
    }
    out
}

/// What an applied rewind did, and the dropped prompt to send again.
fn done_text(plan: &RewindPlan, shown_id: &str) -> String {
    let mut out = String::from("\n");
    for path in &plan.restored {
        out.push_str(&format!("restored  {path}\n"));
    }
    for path in &plan.removed {
        out.push_str(&format!("removed   {path}\n"));
    }
    for path in &plan.kept {
        out.push_str(&format!(
            "kept      {path} (changed since by someone else)\n"
        ));
    }
    for r in &plan.refused {
        out.push_str(&format!("not put back  {}: {}\n", r.path, r.why));
    }
    out.push_str(&Rewound::of_plan(plan).line());
    out.push('\n');
    if shown::prompt_dropped(plan) {
        out.push_str(&format!(
            "\nThe conversation no longer holds the prompt of turn {}; send it again with `roocode-cli send --session {shown_id}` if you want it:\n",
            plan.turn
        ));
        out.push_str(&quoted(&plan.prompt));
    }
    out
}

/// `text` as `  > ` lines.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    for line in text.trim_end().lines() {
        out.push_str("  > ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::rewind::{FileAction, FileRewind, NotRestorable};

    fn plan() -> RewindPlan {
        RewindPlan {
            session_id: "S".into(),
            turn: 2,
            last_turn: 3,
            scope: RewindScope::Both,
            workspace: "W1".into(),
            files: vec![
                FileRewind {
                    path: "src/a.rs".into(),
                    action: FileAction::Restore,
                    conflict: None,
                    diff: Some("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-new\n+old\n".into()),
                },
                FileRewind {
                    path: "notes.txt".into(),
                    action: FileAction::Remove,
                    conflict: None,
                    diff: None,
                },
                FileRewind {
                    path: "b.txt".into(),
                    action: FileAction::Restore,
                    conflict: Some(
                        "changed after turn 3 by someone else (you, or another session)".into(),
                    ),
                    diff: None,
                },
            ],
            not_restorable: vec![NotRestorable {
                path: ".env".into(),
                why: "may hold credentials: never copied".into(),
            }],
            notes: Vec::new(),
            messages_removed: 6,
            prompt: "fix the parser\nand its tests".into(),
            applied: false,
            restored: vec![],
            removed: vec![],
            kept: vec![],
            refused: vec![],
        }
    }

    #[test]
    fn the_plan_shows_each_file_its_diff_conflicts_and_the_dropped_prompt() {
        assert_eq!(
            plan_text(&plan(), "7c5e01b2").text(),
            "\
Rewind of session 7c5e01b2 to before turn 2 of 3 and turn 3 after it (files and conversation)

Files (3):
  restore  src/a.rs
      --- a/src/a.rs
      +++ b/src/a.rs
      @@ -1 +1 @@
      -new
      +old
  remove   notes.txt
  restore  b.txt
           conflict: changed after turn 3 by someone else (you, or another session); kept unless you choose to overwrite it

Cannot be restored (1), the snapshots do not hold them:
  .env: may hold credentials: never copied

Conversation: 6 messages removed, with the prompt that began the turn:
  > fix the parser
  > and its tests
"
        );
    }

    #[test]
    fn the_plans_diff_is_coloured_added_green_removed_red_conflicts_yellow() {
        let text = plan_text(&plan(), "7c5e01b2").render(true, crate::output::for_terminal);
        for want in [
            "      \x1b[1m--- a/src/a.rs\x1b[0m\n",
            "      \x1b[1m+++ b/src/a.rs\x1b[0m\n",
            "      \x1b[36m@@ -1 +1 @@\x1b[0m\n",
            "      \x1b[31m-new\x1b[0m\n      \x1b[32m+old\x1b[0m\n  remove   notes.txt\n",
            "           \x1b[33mconflict: changed after turn 3",
            "overwrite it\x1b[0m\n",
        ] {
            assert!(text.contains(want), "{want:?} in {text:?}");
        }
        assert!(text.starts_with("Rewind of session 7c5e01b2"), "{text:?}");
        // Without colour: the same text as before, not one escape.
        let plain = plan_text(&plan(), "7c5e01b2").render(false, crate::output::for_terminal);
        assert_eq!(plain, plan_text(&plan(), "7c5e01b2").text());
        assert!(!plain.contains('\x1b'));
        // A diff's own escape sequences are cleaned for a terminal, coloured or not.
        let mut p = plan();
        p.files[0].diff = Some("+\x1b[2Jhidden\n".into());
        let text = plan_text(&p, "x").render(true, crate::output::for_terminal);
        assert!(text.contains("\x1b[32m+[2Jhidden\x1b[0m"), "{text:?}");
    }

    #[test]
    fn a_plan_of_one_scope_says_what_it_leaves() {
        let mut p = plan();
        p.scope = RewindScope::Files;
        let text = plan_text(&p, "x").text();
        assert!(text.contains("(files only)"), "{text}");
        assert!(text.ends_with("\nConversation: kept (--files)\n"), "{text}");
        p.scope = RewindScope::Conversation;
        p.files.clear();
        let text = plan_text(&p, "x").text();
        assert!(
            text.contains("Files: left as they are (--conversation)"),
            "{text}"
        );
        assert!(!text.contains(".env"), "{text}");
    }

    #[test]
    fn what_was_done_and_the_prompt_to_send_again() {
        let mut p = plan();
        p.applied = true;
        p.restored = vec!["src/a.rs".into()];
        p.removed = vec!["notes.txt".into()];
        p.kept = vec!["b.txt".into()];
        assert_eq!(
            done_text(&p, "7c5e01b2"),
            "
restored  src/a.rs
removed   notes.txt
kept      b.txt (changed since by someone else)
rewound to before turn 2: 1 file restored, 1 removed, 1 kept (changed since by someone else), conversation cut by 6 messages

The conversation no longer holds the prompt of turn 2; send it again with `roocode-cli send --session 7c5e01b2` if you want it:
  > fix the parser
  > and its tests
"
        );
        p.scope = RewindScope::Files;
        p.refused = vec![NotRestorable {
            path: "link/x".into(),
            why: "under a symlinked directory".into(),
        }];
        let text = done_text(&p, "x");
        assert!(text.contains("not put back  link/x: under a symlinked directory\n"));
        assert!(!text.contains("send it again"), "{text}");
    }

    #[test]
    fn answers_default_to_no() {
        assert_eq!(answer(Some("y")), Answer::Yes);
        assert_eq!(answer(Some(" YES ")), Answer::Yes);
        assert_eq!(answer(Some("")), Answer::No);
        assert_eq!(answer(Some("n")), Answer::No);
        assert_eq!(answer(None), Answer::No, "the end of input declines");
        assert_eq!(answer(Some("maybe")), Answer::Again);
    }
}
