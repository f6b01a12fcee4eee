//! `session.import`: a session exported as JSONL (one message per line) becomes a
//! session again — its model context, and an event log that replays as a transcript
//! (user messages, assistant messages, tool results), so `attach` shows it.

use roocode_protocol::content::{ContentBlock, Message, Role};
use roocode_protocol::event::EventPayload;
use roocode_protocol::session::{CreateParams, ImportParams, SessionInfo};

use super::{AgentError, Agents};
use crate::context::chain;

/// Turn id given to the events of imported messages.
const IMPORT_TURN: &str = "import";

impl Agents {
    /// Imports one page; the first page creates the session.
    pub async fn import(&self, params: ImportParams) -> Result<SessionInfo, AgentError> {
        let mut messages = Vec::with_capacity(params.lines.len());
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
            messages.push(msg);
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
        if let Some(rt) = self.existing_runtime(&id)
            && rt.state.lock().await.running.is_some()
        {
            return Err(AgentError::Invalid(
                "the session is running a turn: import into it once it is idle".into(),
            ));
        }
        let mut context = self.store.context(&id).await?;
        let mut events = Vec::new();
        for msg in messages {
            events.extend(transcript_events(&msg));
            context.push(msg);
        }
        // An export cut anywhere (or edited by hand) must still be a valid history.
        chain::repair(
            &mut context,
            "This tool call's result was not in the imported file.",
        );
        self.store.replace_context(&id, &context).await?;
        if !events.is_empty() {
            self.events.append_many(&id, &id, events).await?;
        }
        self.info(&id).await
    }
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
                } => Some(EventPayload::ToolResult {
                    call_id: tool_use_id.clone(),
                    output: content.clone(),
                    is_error: *is_error,
                    duration_ms: 0,
                    diff: None,
                }),
                _ => None,
            })
            .collect(),
    }
}
