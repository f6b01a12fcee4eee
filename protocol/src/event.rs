//! Session events: the append-only, numbered log that clients replay and follow.
//!
//! Every event of a session has a per-session `seq` starting at 1, an RFC 3339 `ts`,
//! the session and agent it came from, and a typed payload flattened beside them:
//! `{"seq":3,"ts":"…","session_id":"S","agent_id":"S","type":"text_delta","message_id":"M","text":"Hi"}`.
//! `snapshot` and `resync` are per subscription and never stored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, Usage};
pub use crate::error_kind::ErrorKind;
use crate::session::{PendingRequest, SessionInfo};

/// One event of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub seq: u64,
    pub ts: String,
    pub session_id: String,
    pub agent_id: String,
    #[serde(flatten)]
    pub payload: EventPayload,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    MaxTurns,
    MaxTokens,
    Cancelled,
    /// The daemon died or stopped while the turn ran.
    Interrupted,
    Error,
    /// A reason this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl StopReason {
    /// Exit status of `roocode-cli send` for this stop reason (DESIGN.md §12).
    pub fn exit_code(self) -> i32 {
        match self {
            StopReason::EndTurn => 0,
            StopReason::MaxTurns => 3,
            StopReason::Cancelled => 130,
            StopReason::MaxTokens
            | StopReason::Interrupted
            | StopReason::Error
            | StopReason::Unknown => 1,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTurns => "max_turns",
            StopReason::MaxTokens => "max_tokens",
            StopReason::Cancelled => "cancelled",
            StopReason::Interrupted => "interrupted",
            StopReason::Error => "error",
            StopReason::Unknown => "unknown",
        }
    }
}

/// A classified error, as carried by `error` events and failed turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    pub kind: ErrorKind,
    pub message: String,
}

/// Who answered a permission request or question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DecidedBy {
    /// `cli`, `tui`, `hook`, `rule`, …
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventPayload {
    /// A user message delivered to the model, in the turn that consumed it.
    UserMessage {
        turn_id: String,
        input_id: String,
        text: String,
    },
    /// A message sent while a turn was running; delivered at the next model call.
    MessageQueued {
        input_id: String,
        text: String,
    },
    TurnStarted {
        turn_id: String,
    },
    TextDelta {
        message_id: String,
        text: String,
    },
    ThinkingDelta {
        message_id: String,
        text: String,
    },
    /// A complete assistant message, after its stream ended.
    AssistantMessage {
        message_id: String,
        content: Vec<ContentBlock>,
    },
    ToolCall {
        call_id: String,
        name: String,
        input: Value,
    },
    /// Live output of a long-running tool.
    ToolOutput {
        call_id: String,
        text: String,
    },
    ToolResult {
        call_id: String,
        output: String,
        is_error: bool,
        duration_ms: u64,
        /// Unified diff of the files the call changed (edits and writes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
    },
    PermissionRequest {
        request_id: String,
        call_id: String,
        tool: String,
        input: Value,
        reason: String,
    },
    PermissionResolved {
        request_id: String,
        decision: String,
        decided_by: DecidedBy,
    },
    Question {
        request_id: String,
        call_id: String,
        questions: Value,
    },
    QuestionResolved {
        request_id: String,
        answers: Value,
        decided_by: DecidedBy,
    },
    /// Tokens of one model call (and its cost when the price is known).
    Usage {
        message_id: String,
        model: String,
        #[serde(flatten)]
        usage: Usage,
    },
    /// The context was compacted: about `before_tokens` → `after_tokens`; `summarized`
    /// messages were replaced by a summary (`how: summary`) or dropped (`how:
    /// dropped`, when no summary could be written), `kept` stayed as they were.
    Compaction {
        before_tokens: u64,
        after_tokens: u64,
        #[serde(default)]
        summarized: u64,
        #[serde(default)]
        kept: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        how: Option<String>,
    },
    /// A step failed and recovery acts (DESIGN.md §11): the failure's `category`
    /// (`rate_limited`, `context_overflow`, `edit_error`, …), the `strategy` tried
    /// (`retry`, `fallback_model`, `truncate`, `compact`, `remind_and_retry`,
    /// `summarize`, `abort`), its `attempt` of `max`, the wait before it (`delay_ms`, 0
    /// when none) and `message`, the line clients show (`retrying in 4 s (rate limited,
    /// attempt 2/5)`).
    Recovery {
        category: String,
        strategy: String,
        attempt: u32,
        max: u32,
        #[serde(default)]
        delay_ms: u64,
        message: String,
    },
    /// A model call failed and is retried after `delay_ms` (sent with the `recovery`
    /// event of a `retry`, for clients that predate it).
    Retrying {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        reason: String,
    },
    /// Discard the partial text of message `message_id`: its attempt failed.
    StreamReset {
        message_id: String,
    },
    ModeChanged {
        mode: crate::Mode,
    },
    ModelChanged {
        model: String,
        /// The context window the daemon budgets the new model with (tokens); absent
        /// from older daemons and when the model does not resolve.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// `/clear`: the model context was emptied; the event log is kept.
    ContextCleared,
    /// `session.rewind`: turn `turn` and every later one were undone — the files put
    /// back (`files`), the conversation cut to before it (`conversation`), or both.
    Rewound {
        turn: u32,
        #[serde(default)]
        files: bool,
        #[serde(default)]
        conversation: bool,
        #[serde(default)]
        restored: u64,
        #[serde(default)]
        removed: u64,
        #[serde(default)]
        kept: u64,
        #[serde(default)]
        messages_removed: u64,
    },
    /// A replay (`session.replay`) found the session going otherwise than its
    /// recording: `kind` is `tool_result` (a result that differs), `call_not_recorded`
    /// (a tool call the recording does not have), `call_not_made` (a recorded call the
    /// replay never made), `model_call_not_recorded` (the agent asked the model more
    /// often than it was recorded to), `agent_not_recorded`, `denied` (the gate now
    /// refuses a call the recording ran); `expected` and `actual` are the two results
    /// (cut) when they differ.
    ReplayDivergence {
        kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expected: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actual: Option<String>,
    },
    /// A replay ended: how many recorded model answers it used (of how many), how many
    /// tool calls it compared, how many divergences it found, why it stopped before
    /// its end (`stopped`: the daemon stopped, the session was deleted), and one line
    /// for a person.
    ReplayFinished {
        recorded_session_id: String,
        model_calls: u64,
        recorded_model_calls: u64,
        tool_calls: u64,
        divergences: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        message: String,
    },
    /// A workflow changed (see [`crate::workflow`]): `step` is `activated`, `phase` (a
    /// function's phase changed: `phase` says to what), `transition`, `artifact` (captured),
    /// `evidence`, `continuation`, `refused` (a transition that may not run); `name` is the
    /// function (or artifact) concerned; `message` one line for a person.
    Workflow {
        step: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<crate::workflow::FunctionPhase>,
        message: String,
    },
    TurnCompleted {
        turn_id: String,
        stop_reason: StopReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorInfo>,
    },
    /// A sub-agent started. This and the other `agent_*` events are on its parent's
    /// stream; the event's `agent_id` is the child's id (its session's).
    AgentSpawned {
        name: String,
        agent_type: String,
        description: String,
        background: bool,
    },
    /// A running sub-agent's progress, at most once a second per agent.
    AgentProgress {
        tool_calls: u64,
        tokens: u64,
        /// What it did last: the name of its last tool call, or "thinking".
        last_activity: String,
    },
    /// A foreground sub-agent moved to the background: the parent's turn goes on.
    AgentBackgrounded,
    /// A sub-agent ended: its state, the start of its result, its usage.
    AgentCompleted {
        state: crate::agents::AgentState,
        summary: String,
        usage: Usage,
    },
    /// A text the daemon gave the model before its next call (a task notification; later
    /// mailbox messages, hook corrections, recovery notes): synthetic, never a user turn.
    Injected {
        turn_id: String,
        /// `task_notification`, …
        kind: String,
        text: String,
    },
    /// A member joined the team, or its state changed. This and the other team events
    /// are on the lead's stream; the event's `agent_id` is the member's (for
    /// `mailbox_message`, the sender's).
    TeamMember {
        team: String,
        name: String,
        agent_type: String,
        state: crate::teams::MemberState,
        /// True on the event of its joining.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        joined: bool,
    },
    /// A task of the team's shared list was created or changed.
    TaskUpdated {
        team: String,
        task_id: i64,
        subject: String,
        /// `pending`, `in_progress` or `completed`.
        status: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
        /// The tasks it waits for that are not completed yet.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        blocked_by: Vec<i64>,
    },
    /// A message was sent in the team (also on the recipient's own stream).
    MailboxMessage {
        team: String,
        /// Team names: a member's name, or `lead`.
        from: String,
        to: String,
        /// `message`, `status_update`, `idle_notification`, …
        kind: String,
        summary: String,
    },
    /// A problem worth showing that does not by itself end the turn.
    Error {
        #[serde(flatten)]
        error: ErrorInfo,
    },
    /// First event of every subscription: the session's state and what waits on a human.
    Snapshot {
        session: Box<SessionInfo>,
        pending: Vec<PendingRequest>,
    },
    /// Last event of a subscription whose client fell behind: resubscribe after `last_seq`.
    Resync {
        last_seq: u64,
    },
    /// An event type this build does not know (a newer daemon's); its fields are
    /// dropped. Clients skip it; it still has its `seq`.
    #[serde(other)]
    Unknown,
}

impl EventPayload {
    /// The wire name of this payload's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            EventPayload::UserMessage { .. } => "user_message",
            EventPayload::MessageQueued { .. } => "message_queued",
            EventPayload::TurnStarted { .. } => "turn_started",
            EventPayload::TextDelta { .. } => "text_delta",
            EventPayload::ThinkingDelta { .. } => "thinking_delta",
            EventPayload::AssistantMessage { .. } => "assistant_message",
            EventPayload::ToolCall { .. } => "tool_call",
            EventPayload::ToolOutput { .. } => "tool_output",
            EventPayload::ToolResult { .. } => "tool_result",
            EventPayload::PermissionRequest { .. } => "permission_request",
            EventPayload::PermissionResolved { .. } => "permission_resolved",
            EventPayload::Question { .. } => "question",
            EventPayload::QuestionResolved { .. } => "question_resolved",
            EventPayload::Usage { .. } => "usage",
            EventPayload::Compaction { .. } => "compaction",
            EventPayload::Recovery { .. } => "recovery",
            EventPayload::Retrying { .. } => "retrying",
            EventPayload::StreamReset { .. } => "stream_reset",
            EventPayload::ModeChanged { .. } => "mode_changed",
            EventPayload::ModelChanged { .. } => "model_changed",
            EventPayload::ContextCleared => "context_cleared",
            EventPayload::Rewound { .. } => "rewound",
            EventPayload::ReplayDivergence { .. } => "replay_divergence",
            EventPayload::ReplayFinished { .. } => "replay_finished",
            EventPayload::Workflow { .. } => "workflow",
            EventPayload::TurnCompleted { .. } => "turn_completed",
            EventPayload::AgentSpawned { .. } => "agent_spawned",
            EventPayload::AgentProgress { .. } => "agent_progress",
            EventPayload::AgentBackgrounded => "agent_backgrounded",
            EventPayload::AgentCompleted { .. } => "agent_completed",
            EventPayload::Injected { .. } => "injected",
            EventPayload::TeamMember { .. } => "team_member",
            EventPayload::TaskUpdated { .. } => "task_updated",
            EventPayload::MailboxMessage { .. } => "mailbox_message",
            EventPayload::Error { .. } => "error",
            EventPayload::Snapshot { .. } => "snapshot",
            EventPayload::Resync { .. } => "resync",
            EventPayload::Unknown => "unknown",
        }
    }

    /// True for the per-subscription events that are never stored.
    pub fn is_per_subscription(&self) -> bool {
        matches!(
            self,
            EventPayload::Snapshot { .. } | EventPayload::Resync { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_flat_json_objects() {
        let ev = Event {
            seq: 3,
            ts: "2026-11-30T10:00:00.000Z".into(),
            session_id: "S".into(),
            agent_id: "S".into(),
            payload: EventPayload::TextDelta {
                message_id: "M".into(),
                text: "Let me ".into(),
            },
        };
        let json = serde_json::to_string(&ev).unwrap();
        assert_eq!(
            json,
            r#"{"seq":3,"ts":"2026-11-30T10:00:00.000Z","session_id":"S","agent_id":"S","type":"text_delta","message_id":"M","text":"Let me "}"#
        );
        let back: Event = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ev);
    }

    #[test]
    fn turn_completed_round_trips_with_error() {
        let ev = EventPayload::TurnCompleted {
            turn_id: "T".into(),
            stop_reason: StopReason::Error,
            error: Some(ErrorInfo {
                kind: "auth".into(),
                message: "bad key".into(),
            }),
        };
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(v["stop_reason"], "error");
        assert_eq!(v["error"]["kind"], "auth");
        assert_eq!(serde_json::from_value::<EventPayload>(v).unwrap(), ev);
    }
}
