//! Chain validation and repair: every `tool_use` has exactly one matching
//! `tool_result` in the next message, or the provider rejects the whole request.
//!
//! [`repair`] is the one function used after a user interrupt, after compaction and
//! when a session is loaded after a crash; the turn also [`validate`]s the context
//! before every model call (and repairs it if needed), so no code path can send an
//! unpaired history.

use std::collections::HashSet;

use roocode_protocol::content::{ContentBlock, Message, Role};

/// What [`repair`] changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RepairReport {
    /// Synthetic results added for tool calls that had none.
    pub synthesized: usize,
    /// Results removed because no call matched them or another result did first.
    pub dropped_results: usize,
    /// Empty messages removed and same-role neighbours merged.
    pub normalized: usize,
}

impl RepairReport {
    pub fn changed(&self) -> bool {
        self.synthesized + self.dropped_results + self.normalized > 0
    }
}

/// Why a history is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("message {0} is empty")]
    Empty(usize),
    #[error("messages {0} and {1} have the same role")]
    SameRole(usize, usize),
    #[error("the first message is not from the user")]
    FirstNotUser,
    #[error("tool call {id} in message {index} has no result in the next message")]
    MissingResult { index: usize, id: String },
    #[error("tool result {id} in message {index} answers no call of the previous message")]
    OrphanResult { index: usize, id: String },
    #[error("tool results in message {0} do not come first")]
    ResultsNotFirst(usize),
    #[error("tool call id {id} appears twice in message {index}")]
    DuplicateCall { index: usize, id: String },
    #[error("message {0} is the user's but holds a tool call")]
    CallFromUser(usize),
}

/// Checks the pairing rules without changing anything.
pub fn validate(messages: &[Message]) -> Result<(), ChainError> {
    if let Some(first) = messages.first()
        && first.role != Role::User
    {
        return Err(ChainError::FirstNotUser);
    }
    for (i, msg) in messages.iter().enumerate() {
        if msg.content.is_empty() {
            return Err(ChainError::Empty(i));
        }
        if i > 0 && messages[i - 1].role == msg.role {
            return Err(ChainError::SameRole(i - 1, i));
        }
        let calls: Vec<&str> = if i > 0 && messages[i - 1].role == Role::Assistant {
            messages[i - 1].tool_uses().map(|(id, _, _)| id).collect()
        } else {
            Vec::new()
        };
        if msg.role == Role::User && msg.tool_uses().next().is_some() {
            return Err(ChainError::CallFromUser(i));
        }
        let mut ids = HashSet::new();
        if let Some((id, _, _)) = msg.tool_uses().find(|(id, _, _)| !ids.insert(*id)) {
            return Err(ChainError::DuplicateCall {
                index: i,
                id: id.to_string(),
            });
        }
        let mut seen = HashSet::new();
        let mut past_results = false;
        for block in &msg.content {
            match block {
                ContentBlock::ToolResult { tool_use_id, .. } => {
                    if msg.role != Role::User
                        || !calls.contains(&tool_use_id.as_str())
                        || !seen.insert(tool_use_id.as_str())
                    {
                        return Err(ChainError::OrphanResult {
                            index: i,
                            id: tool_use_id.clone(),
                        });
                    }
                    if past_results {
                        return Err(ChainError::ResultsNotFirst(i));
                    }
                }
                _ => past_results = true,
            }
        }
        if let Some(missing) = calls.iter().find(|id| !seen.contains(*id)) {
            return Err(ChainError::MissingResult {
                index: i - 1,
                id: missing.to_string(),
            });
        }
        if msg.role == Role::Assistant
            && i + 1 == messages.len()
            && let Some((id, _, _)) = msg.tool_uses().next()
        {
            return Err(ChainError::MissingResult {
                index: i,
                id: id.to_string(),
            });
        }
    }
    Ok(())
}

/// Repairs `messages` in place so that [`validate`] accepts them. Tool calls without a
/// result get a synthetic error result saying `note` (e.g. "interrupted by user").
pub fn repair(messages: &mut Vec<Message>, note: &str) -> RepairReport {
    let mut report = RepairReport::default();
    normalize(messages, &mut report);
    start_with_user(messages, &mut report);
    let mut i = 0;
    while i < messages.len() {
        if messages[i].role == Role::User {
            let calls: Vec<String> = if i > 0 {
                messages[i - 1]
                    .tool_uses()
                    .map(|(id, _, _)| id.to_string())
                    .collect()
            } else {
                Vec::new()
            };
            pair_results(&mut messages[i], &calls, note, &mut report);
        } else {
            // after merging, so that merged messages cannot bring two calls of one id
            clean_assistant(&mut messages[i], &mut report);
            if messages[i].tool_uses().next().is_some()
                && messages.get(i + 1).is_none_or(|m| m.role != Role::User)
            {
                messages.insert(
                    i + 1,
                    Message {
                        role: Role::User,
                        content: Vec::new(),
                    },
                );
            }
        }
        i += 1;
    }
    // Dropping orphan results can empty a message; normalise again (pairs stay intact:
    // an emptied message answered no calls, so merging its neighbours breaks nothing).
    normalize(messages, &mut report);
    // ... and the emptied message may have been the first: the history must still
    // start with the user (a message put first answers no call, so pairs stay intact).
    start_with_user(messages, &mut report);
    report
}

/// Removes from an assistant message what only a user message may hold (tool results)
/// and every tool call after the first with the same id (one id, one result).
fn clean_assistant(msg: &mut Message, report: &mut RepairReport) {
    let mut ids = HashSet::new();
    msg.content.retain(|block| match block {
        ContentBlock::ToolResult { .. } => {
            report.dropped_results += 1;
            false
        }
        ContentBlock::ToolUse { id, .. } if !ids.insert(id.clone()) => {
            report.normalized += 1;
            false
        }
        _ => true,
    });
}

/// Puts a short user message first when the history starts with the assistant.
fn start_with_user(messages: &mut Vec<Message>, report: &mut RepairReport) {
    if messages.first().is_some_and(|m| m.role == Role::Assistant) {
        messages.insert(
            0,
            Message::user_text("(the earlier conversation is not available)"),
        );
        report.normalized += 1;
    }
}

/// Puts exactly one result per call first in `msg`, in call order (and drops any tool
/// call from this user message).
fn pair_results(msg: &mut Message, calls: &[String], note: &str, report: &mut RepairReport) {
    let mut results: Vec<Option<ContentBlock>> = vec![None; calls.len()];
    let mut rest = Vec::new();
    for block in msg.content.drain(..) {
        match block {
            ContentBlock::ToolResult {
                ref tool_use_id, ..
            } => match calls.iter().position(|c| c == tool_use_id) {
                Some(pos) if results[pos].is_none() => results[pos] = Some(block),
                _ => report.dropped_results += 1,
            },
            // only the assistant calls tools
            ContentBlock::ToolUse { .. } => report.normalized += 1,
            other => rest.push(other),
        }
    }
    for (slot, id) in results.iter_mut().zip(calls) {
        if slot.is_none() {
            report.synthesized += 1;
            *slot = Some(ContentBlock::ToolResult {
                tool_use_id: id.clone(),
                content: note.to_string(),
                is_error: true,
                images: Vec::new(),
            });
        }
    }
    msg.content = results.into_iter().flatten().chain(rest).collect();
}

/// Removes empty messages and merges same-role neighbours.
fn normalize(messages: &mut Vec<Message>, report: &mut RepairReport) {
    let before = messages.len();
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for msg in messages.drain(..) {
        if msg.content.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(prev) if prev.role == msg.role => prev.content.extend(msg.content),
            _ => out.push(msg),
        }
    }
    report.normalized += before - out.len();
    *messages = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "Read".into(),
            input: json!({}),
        }
    }
    fn result(id: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: "ok".into(),
            is_error: false,
            images: Vec::new(),
        }
    }
    fn assistant(blocks: Vec<ContentBlock>) -> Message {
        Message {
            role: Role::Assistant,
            content: blocks,
        }
    }
    fn user(blocks: Vec<ContentBlock>) -> Message {
        Message {
            role: Role::User,
            content: blocks,
        }
    }

    #[test]
    fn histories_only_a_damaged_file_can_hold_are_repaired_too() {
        // a tool result inside an assistant message
        let mut h = vec![
            Message::user_text("go"),
            assistant(vec![ContentBlock::text("hm"), result("a")]),
        ];
        let r = repair(&mut h, "lost");
        validate(&h).unwrap();
        assert_eq!(r.dropped_results, 1);
        assert_eq!(h[1].content, vec![ContentBlock::text("hm")]);

        // two calls with one id: the first stays, and gets the one result
        let mut h = vec![
            Message::user_text("go"),
            assistant(vec![call("a"), call("a")]),
            user(vec![result("a")]),
        ];
        assert_eq!(
            validate(&h),
            Err(ChainError::DuplicateCall {
                index: 1,
                id: "a".into()
            })
        );
        h[2].content.push(result("a"));
        repair(&mut h, "lost");
        validate(&h).unwrap();
        assert_eq!(h[1].content, vec![call("a")]);
        assert_eq!(h[2].content, vec![result("a")]);

        // a first user message of orphan results only: dropped, and the history still
        // starts with the user
        let mut h = vec![
            user(vec![result("zzz")]),
            assistant(vec![call("b")]),
            user(vec![result("b")]),
        ];
        repair(&mut h, "lost");
        validate(&h).unwrap();
        assert_eq!(h[0].role, Role::User);
        assert_eq!(h[1].content, vec![call("b")]);
    }

    #[test]
    fn interrupted_calls_get_synthetic_results() {
        let mut h = vec![
            Message::user_text("go"),
            assistant(vec![ContentBlock::text("looking"), call("a"), call("b")]),
        ];
        assert!(validate(&h).is_err());
        let r = repair(&mut h, "interrupted by user");
        assert_eq!(r.synthesized, 2);
        validate(&h).unwrap();
        assert_eq!(h.len(), 3);
        assert!(
            matches!(&h[2].content[0], ContentBlock::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "a")
        );
    }

    #[test]
    fn partial_duplicate_and_orphan_results_are_fixed() {
        let mut h = vec![
            Message::user_text("go"),
            assistant(vec![call("a"), call("b")]),
            user(vec![
                ContentBlock::text("also this"),
                result("b"),
                result("b"),
                result("zzz"),
            ]),
            assistant(vec![ContentBlock::text("done")]),
            user(vec![result("a")]),
        ];
        let r = repair(&mut h, "lost");
        validate(&h).unwrap();
        assert_eq!(r.synthesized, 1);
        assert_eq!(r.dropped_results, 3);
        // Results first, in call order, then the text.
        assert!(
            matches!(&h[2].content[0], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "a")
        );
        assert!(
            matches!(&h[2].content[1], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "b")
        );
        assert_eq!(h.len(), 4);
    }

    #[test]
    fn valid_history_is_untouched() {
        let mut h = vec![
            Message::user_text("go"),
            assistant(vec![call("a")]),
            user(vec![result("a")]),
            assistant(vec![ContentBlock::text("done")]),
        ];
        let before = h.clone();
        assert!(!repair(&mut h, "x").changed());
        assert_eq!(h, before);
    }

    #[test]
    fn same_roles_merge_and_leading_assistant_gets_a_user_message() {
        let mut h = vec![
            assistant(vec![ContentBlock::text("hi")]),
            Message::user_text("a"),
            Message::user_text("b"),
            user(vec![]),
        ];
        repair(&mut h, "x");
        validate(&h).unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h[2].text(), "ab");
    }
}
