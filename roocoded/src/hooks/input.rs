//! What a hook is told about its event: [`HookInput`], built per event, serialised in
//! Claude Code's shape (the JSON a command hook reads on stdin, so that hooks written
//! for Claude Code work unchanged) and flattened into the fields a condition sees.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::event::{CompactTrigger, HookEvent, SessionSource};

/// How deep [`HookInput::fields`] follows nested objects of `tool_input`/`tool_response`.
const MAX_FIELD_DEPTH: usize = 8;

/// What every event carries: who and where.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookContext {
    pub session_id: String,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The session's transcript, if it has a file; empty otherwise.
    pub transcript_path: String,
    /// `default`, `acceptEdits`, `plan`, `bypassPermissions` or `dontAsk`.
    pub permission_mode: String,
    /// The (sub-)agent the event comes from; `None` for the main agent.
    pub agent: Option<String>,
}

/// One event, as hooks see it. Built with one constructor per event.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    event: HookEvent,
    context: HookContext,
    tool_name: Option<String>,
    tool_input: Option<Value>,
    tool_response: Option<Value>,
    tool_use_id: Option<String>,
    prompt: Option<String>,
    source: Option<SessionSource>,
    reason: Option<String>,
    stop_hook_active: Option<bool>,
    trigger: Option<CompactTrigger>,
    custom_instructions: Option<String>,
    message: Option<String>,
    notification_type: Option<String>,
}

impl HookInput {
    fn new(event: HookEvent, context: HookContext) -> HookInput {
        HookInput {
            event,
            context,
            tool_name: None,
            tool_input: None,
            tool_response: None,
            tool_use_id: None,
            prompt: None,
            source: None,
            reason: None,
            stop_hook_active: None,
            trigger: None,
            custom_instructions: None,
            message: None,
            notification_type: None,
        }
    }

    pub fn session_start(context: HookContext, source: SessionSource) -> HookInput {
        HookInput {
            source: Some(source),
            ..HookInput::new(HookEvent::SessionStart, context)
        }
    }

    /// `reason` as Claude Code's: `clear`, `logout`, `prompt_input_exit`, `other`, ...
    pub fn session_end(context: HookContext, reason: impl Into<String>) -> HookInput {
        HookInput {
            reason: Some(reason.into()),
            ..HookInput::new(HookEvent::SessionEnd, context)
        }
    }

    pub fn user_prompt_submit(context: HookContext, prompt: impl Into<String>) -> HookInput {
        HookInput {
            prompt: Some(prompt.into()),
            ..HookInput::new(HookEvent::UserPromptSubmit, context)
        }
    }

    pub fn pre_tool_use(
        context: HookContext,
        tool_name: impl Into<String>,
        tool_input: Value,
    ) -> HookInput {
        HookInput::tool(HookEvent::PreToolUse, context, tool_name.into(), tool_input)
    }

    pub fn post_tool_use(
        context: HookContext,
        tool_name: impl Into<String>,
        tool_input: Value,
        tool_response: Value,
    ) -> HookInput {
        HookInput {
            tool_response: Some(tool_response),
            ..HookInput::tool(
                HookEvent::PostToolUse,
                context,
                tool_name.into(),
                tool_input,
            )
        }
    }

    pub fn permission_request(
        context: HookContext,
        tool_name: impl Into<String>,
        tool_input: Value,
    ) -> HookInput {
        HookInput::tool(
            HookEvent::PermissionRequest,
            context,
            tool_name.into(),
            tool_input,
        )
    }

    /// `stop_hook_active`: the agent already continues because of a stop hook.
    pub fn stop(context: HookContext, stop_hook_active: bool) -> HookInput {
        HookInput {
            stop_hook_active: Some(stop_hook_active),
            ..HookInput::new(HookEvent::Stop, context)
        }
    }

    pub fn subagent_stop(context: HookContext, stop_hook_active: bool) -> HookInput {
        HookInput {
            stop_hook_active: Some(stop_hook_active),
            ..HookInput::new(HookEvent::SubagentStop, context)
        }
    }

    /// `custom_instructions`: what the user wrote after `/compact` (empty for auto).
    pub fn pre_compact(
        context: HookContext,
        trigger: CompactTrigger,
        custom_instructions: impl Into<String>,
    ) -> HookInput {
        HookInput {
            trigger: Some(trigger),
            custom_instructions: Some(custom_instructions.into()),
            ..HookInput::new(HookEvent::PreCompact, context)
        }
    }

    /// `notification_type` of a tool call (or a plan) waiting for the user's permission.
    pub const PERMISSION_PROMPT: &'static str = "permission_prompt";
    /// `notification_type` of a main agent that finished its turn and has waited for the
    /// user's next message, with no client attached, for `notifications.idle_after_ms`.
    pub const IDLE_PROMPT: &'static str = "idle_prompt";
    /// `notification_type` of a question (`AskUserQuestion`) waiting for the user's
    /// answer: Claude Code's type for a dialog that asks the user for input.
    pub const ELICITATION_DIALOG: &'static str = "elicitation_dialog";

    /// `notification_type` as Claude Code's ([`HookInput::PERMISSION_PROMPT`],
    /// [`HookInput::IDLE_PROMPT`], [`HookInput::ELICITATION_DIALOG`]); a notification's
    /// matcher matches it.
    pub fn notification(
        context: HookContext,
        message: impl Into<String>,
        notification_type: Option<String>,
    ) -> HookInput {
        HookInput {
            message: Some(message.into()),
            notification_type,
            ..HookInput::new(HookEvent::Notification, context)
        }
    }

    fn tool(event: HookEvent, context: HookContext, name: String, input: Value) -> HookInput {
        HookInput {
            tool_name: Some(name),
            tool_input: Some(input),
            ..HookInput::new(event, context)
        }
    }

    /// Adds the id of the tool call (`tool_use_id`) to a tool event.
    pub fn with_tool_use_id(mut self, id: impl Into<String>) -> HookInput {
        self.tool_use_id = Some(id.into());
        self
    }

    pub fn event(&self) -> HookEvent {
        self.event
    }

    pub fn context(&self) -> &HookContext {
        &self.context
    }

    pub fn tool_name(&self) -> Option<&str> {
        self.tool_name.as_deref()
    }

    pub fn tool_input(&self) -> Option<&Value> {
        self.tool_input.as_ref()
    }

    pub fn source(&self) -> Option<SessionSource> {
        self.source
    }

    pub fn trigger(&self) -> Option<CompactTrigger> {
        self.trigger
    }

    pub fn notification_type(&self) -> Option<&str> {
        self.notification_type.as_deref()
    }

    /// A string key of `tool_input` (`file_path`, `command`); `None` when absent or
    /// not a string.
    pub fn tool_input_str(&self, key: &str) -> Option<&str> {
        self.tool_input.as_ref()?.get(key)?.as_str()
    }

    /// What the event's matcher is matched against (see
    /// [`HookEvent::matcher_target`]); `None` when the event has no such value.
    pub fn matcher_value(&self) -> Option<&str> {
        match self.event {
            HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PermissionRequest => {
                self.tool_name.as_deref()
            }
            HookEvent::SessionStart => self.source.map(SessionSource::as_str),
            HookEvent::PreCompact => self.trigger.map(CompactTrigger::as_str),
            HookEvent::Notification => self.notification_type.as_deref(),
            HookEvent::SessionEnd
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop => None,
        }
    }

    /// The JSON a command hook reads on stdin, in Claude Code's shape:
    /// `hook_event_name` (PascalCase), `session_id`, `transcript_path`, `cwd`,
    /// `permission_mode`, then the event's own keys (`tool_name`, `tool_input`,
    /// `tool_use_id`, `tool_response`, `prompt`, `source`, `reason`,
    /// `stop_hook_active`, `trigger`, `custom_instructions`, `message`,
    /// `notification_type`) and `agent` when a sub-agent's.
    pub fn to_json(&self) -> Value {
        let c = &self.context;
        let mut map = Map::new();
        map.insert("hook_event_name".into(), json!(self.event.claude_name()));
        map.insert("session_id".into(), json!(c.session_id));
        map.insert("transcript_path".into(), json!(c.transcript_path));
        map.insert("cwd".into(), json!(c.cwd.to_string_lossy()));
        map.insert("permission_mode".into(), json!(c.permission_mode));
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                map.insert(key.into(), value);
            }
        };
        put("tool_name", self.tool_name.as_ref().map(|v| json!(v)));
        put("tool_input", self.tool_input.clone());
        put("tool_use_id", self.tool_use_id.as_ref().map(|v| json!(v)));
        put("tool_response", self.tool_response.clone());
        put("prompt", self.prompt.as_ref().map(|v| json!(v)));
        put("source", self.source.map(|v| json!(v.as_str())));
        put("reason", self.reason.as_ref().map(|v| json!(v)));
        put("stop_hook_active", self.stop_hook_active.map(|v| json!(v)));
        put("trigger", self.trigger.map(|v| json!(v.as_str())));
        put(
            "custom_instructions",
            self.custom_instructions.as_ref().map(|v| json!(v)),
        );
        put("message", self.message.as_ref().map(|v| json!(v)));
        put(
            "notification_type",
            self.notification_type.as_ref().map(|v| json!(v)),
        );
        put("agent", c.agent.as_ref().map(|v| json!(v)));
        Value::Object(map)
    }

    /// The flat map of strings a condition reads. Keys: `event` (snake_case), `tool`,
    /// `session_id`, `cwd`, `permission_mode`, `transcript_path`, `prompt`, `source`,
    /// `reason`, `message`, `notification_type`, `agent`, `trigger`,
    /// `custom_instructions`, `stop_hook_active` (`true`/`false`), each only when the
    /// event has it; every top-level key of `tool_input` (unless it is one of those),
    /// and every nested key under its dotted path (`tool_input.file_path`,
    /// `tool_response.stdout`). Strings are themselves, other values compact JSON.
    pub fn fields(&self) -> BTreeMap<String, String> {
        let c = &self.context;
        let mut fields = BTreeMap::new();
        let mut put = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                fields.insert(key.to_string(), value);
            }
        };
        put("event", Some(self.event.as_str().into()));
        put("tool", self.tool_name.clone());
        put("session_id", Some(c.session_id.clone()));
        put("cwd", Some(c.cwd.to_string_lossy().into_owned()));
        put("permission_mode", Some(c.permission_mode.clone()));
        put("transcript_path", Some(c.transcript_path.clone()));
        put("agent", c.agent.clone());
        put("prompt", self.prompt.clone());
        put("source", self.source.map(|s| s.as_str().into()));
        put("reason", self.reason.clone());
        put("message", self.message.clone());
        put("notification_type", self.notification_type.clone());
        put("trigger", self.trigger.map(|t| t.as_str().into()));
        put("custom_instructions", self.custom_instructions.clone());
        put(
            "stop_hook_active",
            self.stop_hook_active.map(|b| b.to_string()),
        );
        put("tool_use_id", self.tool_use_id.clone());
        if let Some(Value::Object(input)) = &self.tool_input {
            for (key, value) in input {
                fields
                    .entry(key.clone())
                    .or_insert_with(|| field_text(value));
            }
        }
        for (name, value) in [
            ("tool_input", &self.tool_input),
            ("tool_response", &self.tool_response),
        ] {
            if let Some(value) = value {
                flatten(name, value, 0, &mut fields);
            }
        }
        fields
    }
}

fn field_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn flatten(path: &str, value: &Value, depth: usize, fields: &mut BTreeMap<String, String>) {
    fields.insert(path.to_string(), field_text(value));
    if let Value::Object(map) = value
        && depth < MAX_FIELD_DEPTH
    {
        for (key, value) in map {
            flatten(&format!("{path}.{key}"), value, depth + 1, fields);
        }
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
