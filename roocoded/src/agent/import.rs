//! `session.import`: a session exported as JSONL (one message per line) becomes a
//! session again — its model context, and an event log that replays as a transcript
//! (user messages, assistant messages, tool results), so `attach` shows it.
//!
//! A file comes in pages (`roocode-cli import` sends 500 lines a call) and each page
//! writes only its own end of the context: the stored history is left alone up to its
//! last assistant message, and only that message, what follows it and the new page are
//! repaired together and rewritten — a few rows, whatever the session's length.
//!
//! After every page the stored context is a valid history (an export cut anywhere, or
//! edited by hand, is repaired), so a session is usable even if the client stops
//! sending pages. The protocol does not say which page is the last, so a tool call at
//! the end of a page gets a *provisional* result saying it was not in the file; when
//! the next page goes on with a user message (where the real results are, in a
//! well-formed export), the provisional results are withdrawn before repairing again.
//! An export imported in any number of pages thus gives the same context as one page.

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{CreateParams, ImportParams, SessionInfo};

use super::{AgentError, Engine};
use crate::context::chain;

/// Turn id given to the events of imported messages.
const IMPORT_TURN: &str = "import";

/// Result given to an imported tool call whose result is not in the file.
const NOT_IN_FILE: &str = "This tool call's result was not in the imported file.";

impl Engine {
    /// Imports one page; the first page creates the session.
    pub async fn import(&self, params: ImportParams) -> Result<SessionInfo, AgentError> {
        let mut page = Vec::with_capacity(params.lines.len());
        for (i, line) in params.lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let msg: Message = serde_json::from_str(line).map_err(|e| {
                AgentError::Invalid(format!(
                    "line {} is not an exported message ({e}): expected {{\"role\": \"user\"|\"assistant\", \"content\": [...]}}",
                    i + 1
                ))
            })?;
            page.push(msg);
        }
        let id = match &params.session_id {
            Some(id) => self.resolve(id).await?.id,
            None => {
                let info = self
                    .create(CreateParams {
                        cwd: params.cwd.clone(),
                        title: params.title.clone(),
                        env: params.env.clone(),
                        ..CreateParams::default()
                    })
                    .await?;
                info.id
            }
        };
        let rt = self.runtime(&id).await?;
        if rt.state.lock().await.running.is_some() {
            return Err(AgentError::Invalid(
                "the session is running a turn: import into it once it is idle".into(),
            ));
        }
        // Held across the write: a turn starting meanwhile waits, then loads the
        // imported history, since the cached copy is dropped before this is released.
        let mut cached = rt.context.lock().await;
        let events: Vec<EventPayload> = page.iter().flat_map(transcript_events).collect();
        let start = match self.store.last_assistant_idx(&id).await? {
            Some(idx) if idx > 0 => idx,
            _ => 0,
        };
        let tail = self.store.context_from(&id, start).await?;
        let joined = match join_page(start, tail, &page) {
            Some(joined) => joined,
            // The stored history was not valid where the page joins it: repair all.
            None => join_page(0, self.store.context(&id).await?, &page).ok_or_else(|| {
                AgentError::Invalid("the imported history could not be repaired".into())
            })?,
        };
        self.store
            .replace_context_from(&id, joined.start, &joined.messages)
            .await?;
        *cached = None;
        drop(cached);
        if !events.is_empty() {
            self.events.append_many(&id, &id, events).await?;
        }
        self.info(&id).await
    }
}

/// What a page does to the stored context: the messages from position `start` on
/// become `messages`.
#[derive(Debug, PartialEq)]
struct Joined {
    start: usize,
    messages: Vec<Message>,
}

/// Joins `page` to the stored context, of which `tail` is the part from position
/// `start` on. With `start > 0`, `tail` must begin with the last stored assistant
/// message: in a valid stored history nothing before it can change (it ends with a user
/// message whose results answer the message before it), so repairing `tail + page`
/// gives what repairing the whole history would. `None` when that assumption does not
/// hold (an invalid stored history): the caller joins from position 0 instead.
fn join_page(start: usize, mut tail: Vec<Message>, page: &[Message]) -> Option<Joined> {
    let continues_with_user = page
        .iter()
        .find(|m| !m.content.is_empty())
        .is_some_and(|m| m.role == Role::User);
    if continues_with_user && let Some(last) = tail.last_mut() {
        withdraw_provisional_results(last);
    }
    if start == 0 {
        tail.extend_from_slice(page);
        chain::repair(&mut tail, NOT_IN_FILE);
        return Some(Joined {
            start,
            messages: tail,
        });
    }
    // `repair` treats its first message as the start of a conversation (an assistant
    // there gets a user message before it); the anchor stands for the stored user
    // message before `tail` and is dropped afterwards.
    let anchor = Message::user_text("(the stored history before this page)");
    let mut work = Vec::with_capacity(1 + tail.len() + page.len());
    work.push(anchor.clone());
    work.append(&mut tail);
    work.extend_from_slice(page);
    chain::repair(&mut work, NOT_IN_FILE);
    let second_is_assistant = work.get(1).is_some_and(|m| m.role == Role::Assistant);
    if work.first() != Some(&anchor) || !second_is_assistant {
        return None;
    }
    work.remove(0);
    Some(Joined {
        start,
        messages: work,
    })
}

/// Removes the results that an earlier page's repair gave to tool calls at its end
/// (see the module doc). A file's own result with exactly this text is removed too;
/// repair gives it back unless the next page has a result for that call.
fn withdraw_provisional_results(msg: &mut Message) {
    if msg.role != Role::User {
        return;
    }
    msg.content.retain(|block| {
        !matches!(
            block,
            ContentBlock::ToolResult { content, is_error: true, .. } if content == NOT_IN_FILE
        )
    });
}

/// The events that show an imported message in a transcript.
fn transcript_events(msg: &Message) -> Vec<EventPayload> {
    match msg.role {
        Role::Assistant => vec![EventPayload::AssistantMessage {
            message_id: uuid::Uuid::now_v7().to_string(),
            content: msg.content.clone(),
        }],
        Role::User => msg
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text } => Some(EventPayload::UserMessage {
                    turn_id: IMPORT_TURN.into(),
                    input_id: uuid::Uuid::now_v7().to_string(),
                    text: text.clone(),
                }),
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    images,
                } => Some(EventPayload::ToolResult {
                    call_id: tool_use_id.clone(),
                    output: crate::tools::display_text(content, images),
                    is_error: *is_error,
                    duration_ms: 0,
                    diff: None,
                }),
                _ => None,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::chain::validate;
    use roocode_protocol::content::ImageData;
    use serde_json::json;

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "Read".into(),
            input: json!({"file_path": "a"}),
        }
    }
    fn result(id: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: format!("contents {id}"),
            is_error: false,
            images: Vec::new(),
        }
    }
    fn msg(role: Role, content: Vec<ContentBlock>) -> Message {
        Message { role, content }
    }
    fn assistant(content: Vec<ContentBlock>) -> Message {
        msg(Role::Assistant, content)
    }
    fn user(content: Vec<ContentBlock>) -> Message {
        msg(Role::User, content)
    }

    /// Imports `file` in pages of the given sizes the way `import` does against the
    /// store; returns the stored history after each page, with how much of the file it
    /// holds.
    fn import_in_pages(file: &[Message], sizes: &[usize]) -> Vec<(usize, Vec<Message>)> {
        let mut states = Vec::new();
        let mut stored: Vec<Message> = Vec::new();
        let mut sizes = sizes.iter().cycle();
        let mut done = 0;
        while done < file.len() {
            let n = (*sizes.next().unwrap()).clamp(1, file.len() - done);
            let page = &file[done..done + n];
            done += n;
            let start = stored
                .iter()
                .rposition(|m| m.role == Role::Assistant)
                .filter(|&i| i > 0)
                .unwrap_or(0);
            let joined = join_page(start, stored[start..].to_vec(), page)
                .or_else(|| join_page(0, stored.clone(), page))
                .unwrap();
            assert!(joined.start <= stored.len());
            stored.truncate(joined.start);
            stored.extend(joined.messages);
            states.push((done, stored.clone()));
        }
        states
    }

    /// The history after the last page, checked valid after every page.
    fn import_valid(file: &[Message], sizes: &[usize]) -> Vec<Message> {
        let mut states = import_in_pages(file, sizes);
        for (_, stored) in &states {
            validate(stored).unwrap();
        }
        states.pop().unwrap().1
    }

    /// A valid history: turns of 0–3 iterations of 1–3 tool calls each.
    fn valid_history(rng: &mut fastrand::Rng, turns: usize) -> Vec<Message> {
        let mut h = Vec::new();
        let mut n = 0;
        for t in 0..turns {
            h.push(Message::user_text(format!("task {t}")));
            for _ in 0..rng.usize(0..4) {
                let ids: Vec<String> = (0..rng.usize(1..4))
                    .map(|_| {
                        n += 1;
                        format!("c{n}")
                    })
                    .collect();
                let mut content = vec![ContentBlock::text("looking")];
                content.extend(ids.iter().map(|id| call(id)));
                h.push(assistant(content));
                h.push(user(ids.iter().map(|id| result(id)).collect()));
            }
            h.push(assistant(vec![ContentBlock::text(format!("done {t}"))]));
        }
        h
    }

    #[test]
    fn a_tool_call_and_its_result_on_two_pages_stay_together() {
        let file = vec![
            Message::user_text("read a"),
            assistant(vec![call("a"), call("b")]),
            user(vec![result("a"), result("b")]),
            assistant(vec![ContentBlock::text("done")]),
        ];
        for size in 1..=file.len() {
            assert_eq!(import_valid(&file, &[size]), file, "pages of {size}");
        }
    }

    #[test]
    fn valid_exports_come_back_unchanged_in_any_pages() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let turns = rng.usize(1..8);
            let file = valid_history(&mut rng, turns);
            let sizes: Vec<usize> = (0..4).map(|_| rng.usize(1..6)).collect();
            assert_eq!(import_valid(&file, &sizes), file, "pages {sizes:?}");
        }
    }

    #[test]
    fn an_image_result_is_imported_whole_and_shown_as_a_note() {
        let image = ContentBlock::ToolResult {
            tool_use_id: "a".into(),
            content: "one pixel:".into(),
            is_error: false,
            images: vec![ImageData::new("image/png", "AAAA")],
        };
        let file = vec![
            Message::user_text("look"),
            assistant(vec![call("a")]),
            user(vec![image]),
            assistant(vec![ContentBlock::text("a pixel")]),
        ];
        let lines: Vec<String> = file
            .iter()
            .map(|m| serde_json::to_string(m).unwrap())
            .collect();
        assert!(lines[2].contains(r#""images":[{"media_type":"image/png","data":"AAAA"}]"#));
        let parsed: Vec<Message> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(parsed, file, "export → import keeps the image");
        for size in 1..=file.len() {
            assert_eq!(import_valid(&parsed, &[size]), file, "pages of {size}");
        }
        assert_eq!(
            transcript_events(&file[2]),
            [EventPayload::ToolResult {
                call_id: "a".into(),
                output: "one pixel:\n[image image/png, 3 B]".into(),
                is_error: false,
                duration_ms: 0,
                diff: None,
            }]
        );
    }

    #[test]
    fn a_file_cut_after_a_tool_call_gets_a_result_saying_so() {
        let file = vec![Message::user_text("read a"), assistant(vec![call("a")])];
        let expected = vec![
            file[0].clone(),
            file[1].clone(),
            user(vec![ContentBlock::ToolResult {
                tool_use_id: "a".into(),
                content: NOT_IN_FILE.into(),
                is_error: true,
                images: Vec::new(),
            }]),
        ];
        assert_eq!(import_valid(&file, &[1]), expected);
        assert_eq!(import_valid(&file, &[2]), expected);
    }

    #[test]
    fn messages_of_one_role_across_a_page_boundary_merge_as_in_one_page() {
        let file = vec![
            assistant(vec![ContentBlock::text("no user first")]),
            Message::user_text("a"),
            assistant(vec![call("a"), call("b")]),
            user(vec![result("a")]),
            user(vec![ContentBlock::text("b is below"), result("b")]),
            user(vec![]),
            Message::user_text("more"),
            assistant(vec![ContentBlock::text("x")]),
            assistant(vec![ContentBlock::text("y")]),
        ];
        let mut whole = file.clone();
        chain::repair(&mut whole, NOT_IN_FILE);
        for size in 1..=file.len() {
            assert_eq!(import_valid(&file, &[size]), whole, "pages of {size}");
        }
    }

    /// Random, mostly broken files: whatever the pages, the stored history after each
    /// page is valid wherever repairing the file so far in one piece gives a valid one,
    /// and it is that history unless the file puts two assistant messages around a page
    /// boundary after an unanswered call (the provisional result then keeps them apart).
    #[test]
    fn broken_files_give_valid_histories_in_any_pages() {
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut same, mut checked) = (0, 0);
        for _ in 0..500 {
            // Results only in user messages and no call id twice: `chain::repair`
            // cannot mend either (histories no export can produce).
            let mut calls = 0;
            let file: Vec<Message> = (0..rng.usize(1..12))
                .map(|_| {
                    let role = if rng.bool() {
                        Role::User
                    } else {
                        Role::Assistant
                    };
                    let content = (0..rng.usize(0..3))
                        .map(|_| match (rng.usize(0..3), role) {
                            (0, Role::Assistant) => {
                                calls += 1;
                                call(&format!("c{calls}"))
                            }
                            (0, Role::User) => result(&format!("c{}", rng.usize(0..calls + 2))),
                            _ => ContentBlock::text("t"),
                        })
                        .collect();
                    msg(role, content)
                })
                .collect();
            let sizes: Vec<usize> = (0..3).map(|_| rng.usize(1..5)).collect();
            for (done, paged) in import_in_pages(&file, &sizes) {
                let mut whole = file[..done].to_vec();
                chain::repair(&mut whole, NOT_IN_FILE);
                if validate(&whole).is_ok() {
                    validate(&paged).unwrap();
                    checked += 1;
                }
                if paged == whole {
                    same += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        assert!(same > 1000, "{same}");
    }
}
