//! The compaction that cannot fail (issue 15, item 4): when the summary call fails, or
//! writes nothing, the oldest iterations are dropped instead — on iteration boundaries,
//! so the history stays chain-valid — until what is kept fits, and the user is told
//! what was dropped. The turn goes on; losing the oldest part of a conversation is
//! better than losing the turn.

use roocode_protocol::content::Message;
use roocode_protocol::event::{ErrorInfo, EventPayload};

use super::{AgentError, Engine};
use crate::context::budget::EstimatedContext;
use crate::context::{chain, compact};

/// The history without its oldest iterations: the first cut (an iteration boundary)
/// after which at most `max_kept` tokens remain, or the last one (the last iteration is
/// always kept), behind a note saying what happened. `None` when there is nothing to
/// drop (a single iteration). Also the number of iterations dropped.
pub(super) fn drop_oldest(
    messages: &[Message],
    max_kept: u64,
    why: &str,
) -> Option<(Vec<Message>, usize)> {
    let cuts = compact::boundaries(messages);
    let (position, cut) = cuts
        .iter()
        .copied()
        .enumerate()
        .find(|(_, cut)| compact::estimate(&messages[*cut..]) <= max_kept)
        .or_else(|| Some((cuts.len().checked_sub(1)?, *cuts.last()?)))?;
    let dropped = position + 1;
    let mut out = Vec::with_capacity(messages.len() - cut + 1);
    out.push(Message::user_text(format!(
        "<system-reminder>\nThe oldest part of this conversation ({dropped} step(s)) was dropped to make room: it could not be summarised ({why}). If you need something from it, read the files again or ask the user.\n</system-reminder>"
    )));
    out.extend_from_slice(&messages[cut..]);
    chain::repair(
        &mut out,
        "This tool call's result was dropped with the oldest history.",
    );
    Some((out, dropped))
}

impl Engine {
    /// Drops the oldest iterations of `context` (the session's stored context, whose
    /// lock the caller holds) because no summary could be made (`why`), stores the
    /// result, and tells the session's clients. The before and after estimates; `None`
    /// when there was nothing to drop.
    pub(super) async fn drop_oldest_context(
        &self,
        session_id: &str,
        context: &mut EstimatedContext,
        max_kept: u64,
        why: &str,
    ) -> Result<Option<(u64, u64)>, AgentError> {
        let Some((kept, dropped)) = drop_oldest(context, max_kept, why) else {
            return Ok(None);
        };
        let before = context.estimate_from(0);
        let after = compact::estimate(&kept);
        let (total, kept_len) = (context.len(), kept.len());
        self.store.replace_context(session_id, &kept).await?;
        context.replace(kept);
        tracing::warn!(session = %session_id, dropped, before, after, "no summary ({why}): oldest history dropped");
        let notice = EventPayload::Error {
            error: ErrorInfo {
                kind: "compaction_dropped".into(),
                message: format!(
                    "The context could not be summarised ({why}); the {dropped} oldest step(s) were dropped instead (about {before} → {after} tokens). The agent goes on without them."
                ),
            },
        };
        let compaction = EventPayload::Compaction {
            before_tokens: before,
            after_tokens: after,
            summarized: total.saturating_sub(kept_len) as u64,
            kept: kept_len as u64,
            how: Some("dropped".into()),
        };
        for payload in [notice, compaction] {
            self.events.append(session_id, session_id, payload).await?;
        }
        Ok(Some((before, after)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::content::{ContentBlock, Role};
    use serde_json::json;

    fn iteration(n: usize, size: usize) -> Vec<Message> {
        vec![
            Message::user_text(format!("question {n} {}", "x".repeat(size))),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: format!("t{n}"),
                    name: "Read".into(),
                    input: json!({"file_path": "a"}),
                }],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: format!("t{n}"),
                    content: "ok".into(),
                    is_error: false,
                    images: Vec::new(),
                }],
            },
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::text(format!("answer {n}"))],
            },
        ]
    }

    #[test]
    fn the_oldest_iterations_go_until_the_rest_fits_and_the_chain_stays_valid() {
        let messages: Vec<Message> = (0..4).flat_map(|n| iteration(n, 4_000)).collect();
        let last_two = compact::estimate(&messages[8..]);
        let (kept, dropped) = drop_oldest(&messages, last_two, "HTTP 500").unwrap();
        assert!(dropped >= 2, "{dropped}");
        assert!(
            kept[0]
                .text()
                .contains("could not be summarised (HTTP 500)")
        );
        assert!(kept.iter().all(|m| !m.text().contains("question 0")));
        assert!(kept.iter().any(|m| m.text().contains("question 3")));
        assert_eq!(chain::validate(&kept), Ok(()), "{kept:?}");

        let (kept, _) = drop_oldest(&messages, 0, "no room").unwrap();
        assert!(
            kept.iter().any(|m| m.text().contains("answer 3")),
            "the last step is always kept"
        );
        assert_eq!(drop_oldest(&iteration(0, 10)[..1], 0, "x"), None);
    }
}
