//! Script types of the mock LLM: the replies a test queues up ([`Reply`],
//! [`ScriptedReply`], [`ToolCall`], [`UsageSpec`]), the [`Script`] that holds them, and
//! loading a script from JSON.
//!
//! # JSON format
//!
//! A script file is either a JSON array of replies, or an object
//! `{"replies": [...], "fallback": {...}, "rules": [...], "max_input_tokens": N}` whose
//! optional `fallback` answers every request once the queue is empty (instead of the
//! "script exhausted" error). Optional `routes` give each agent its own queue
//! (`[{"first_user_contains" | "latest_user_contains" | "any_user_contains": "...", or
//! "header": {"name", "value"}, "replies": [...], "fallback": {...}}]`, see `route.rs`).
//! Each optional rule `{"system_contains": "...", "reply":
//! {...}}` answers every request whose system prompt contains that text, without taking
//! from the queue (e.g. the summary calls of context compaction beside a scripted task);
//! rules are tried before routes, since such a call may quote a routed agent's marker.
//! With `max_input_tokens`, a request estimated larger (body bytes / 4, the same
//! estimate the default usage reports) is refused like a real provider refuses a prompt
//! over its context window: HTTP 400 "prompt is too long".
//!
//! Each reply is an object with a `type` and the fields of that type:
//!
//! | `type` | fields |
//! |---|---|
//! | `text` | `text` |
//! | `tool_calls` | `text` (optional), `calls`: `[{"id"?, "name", "input"}]` |
//! | `error` | `status`, `body` (optional JSON; a JSON string is sent verbatim), `retry_after` (optional string) |
//! | `disconnect` | `text` (about half of it is streamed, then the connection drops) |
//! | `mid_stream_error` | `text` (about half, then a protocol error event) |
//! | `max_tokens` | `text` (stop reason `max_tokens` / finish reason `length`) |
//!
//! and optional per-reply options: `thinking` (string), `signature` (Anthropic thinking
//! signature; generated when absent), `delay_ms_per_chunk` (number), `gate` (string),
//! `usage` (`{"input_tokens", "output_tokens", "cache_read_input_tokens",
//! "cache_creation_input_tokens"}`, each optional), `repeat_ids` (bool), `interleave`
//! (bool), `chunk_chars` (number, default 8).
//!
//! ```json
//! {
//!   "replies": [
//!     {"type": "tool_calls", "text": "Let me look.", "thinking": "Need the file.",
//!      "calls": [{"name": "Read", "input": {"file_path": "src/main.rs"}}]},
//!     {"type": "error", "status": 429, "retry_after": "0"},
//!     {"type": "text", "text": "Done.", "delay_ms_per_chunk": 20}
//!   ],
//!   "fallback": {"type": "text", "text": "ok"}
//! }
//! ```

use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Default number of characters per streamed text/JSON piece.
pub const DEFAULT_CHUNK_CHARS: usize = 8;

/// What one model request is answered with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// Plain text, streamed in `chunk_chars` pieces; ends with `end_turn` / `stop`.
    Text { text: String },
    /// Optional text, then tool calls; ends with `tool_use` / `tool_calls`.
    ToolCalls {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        calls: Vec<ToolCall>,
    },
    /// A non-streamed HTTP error. `body`: `null` = a protocol-shaped default error, a JSON
    /// string = sent verbatim as `text/plain`, anything else = sent as JSON.
    Error {
        status: u16,
        #[serde(default)]
        body: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<String>,
    },
    /// Streams about half of the text, then drops the connection with no terminal event.
    Disconnect { text: String },
    /// Streams about half of the text, then a protocol error event (Anthropic
    /// `event: error` with `overloaded_error`; OpenAI a `{"error": ..}` chunk), then ends.
    MidStreamError { text: String },
    /// Text ending with `stop_reason: max_tokens` / `finish_reason: length`.
    MaxTokens { text: String },
}

impl Reply {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A reply with a single tool call (id generated) and no text.
    pub fn tool_call(name: impl Into<String>, input: Value) -> Self {
        Self::ToolCalls {
            text: None,
            calls: vec![ToolCall::new(name, input)],
        }
    }

    /// A reply with several tool calls and no text.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Self::ToolCalls { text: None, calls }
    }

    /// An HTTP error with a protocol-shaped default body and no `retry-after`.
    pub fn error(status: u16) -> Self {
        Self::Error {
            status,
            body: Value::Null,
            retry_after: None,
        }
    }

    /// HTTP 429 with the given `retry-after` header value (e.g. `"0"`).
    pub fn rate_limited(retry_after: impl Into<String>) -> Self {
        Self::Error {
            status: 429,
            body: Value::Null,
            retry_after: Some(retry_after.into()),
        }
    }

    /// HTTP 529 (Anthropic "overloaded").
    pub fn overloaded() -> Self {
        Self::error(529)
    }

    /// Part of `text`, then a dropped connection.
    pub fn disconnect(text: impl Into<String>) -> Self {
        Self::Disconnect { text: text.into() }
    }

    /// Part of `text`, then an error event in the stream.
    pub fn mid_stream_error(text: impl Into<String>) -> Self {
        Self::MidStreamError { text: text.into() }
    }

    /// Text cut off by the token limit.
    pub fn max_tokens(text: impl Into<String>) -> Self {
        Self::MaxTokens { text: text.into() }
    }
}

/// One tool call of a [`Reply::ToolCalls`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id; generated (`toolu_mock_<req>_<i>` / `call_mock_<req>_<i>`) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// Tool input; streamed as its compact JSON serialisation in several pieces.
    #[serde(default = "empty_object")]
    pub input: Value,
}

impl ToolCall {
    /// A call with a generated id.
    pub fn new(name: impl Into<String>, input: Value) -> Self {
        Self {
            id: None,
            name: name.into(),
            input,
        }
    }

    /// A call with a fixed id.
    pub fn with_id(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: Some(id.into()),
            name: name.into(),
            input,
        }
    }
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// Token usage overrides; a `None` field keeps the default (input = request body bytes /
/// 4, output = generated characters / 4 but at least 1, cache fields = 0). For OpenAI,
/// `prompt_tokens` = input + cache read + cache creation and `cached_tokens` = cache read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
}

/// A [`Reply`] plus its streaming options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptedReply {
    #[serde(flatten)]
    pub reply: Reply,
    /// Thinking text: an Anthropic `thinking` block (with signature) / OpenAI
    /// `reasoning_content` deltas, before the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Anthropic thinking signature; a deterministic one is generated when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Sleep before every streamed chunk.
    #[serde(default)]
    pub delay_ms_per_chunk: u64,
    /// After the first content delta, wait until the test opens this gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
    /// OpenAI: repeat the tool call `id`, `type` and `function.name` on every delta.
    #[serde(default)]
    pub repeat_ids: bool,
    /// OpenAI: interleave the deltas of several tool calls round-robin by index.
    #[serde(default)]
    pub interleave: bool,
    /// Characters per streamed text / JSON piece (at least 1).
    #[serde(default = "default_chunk_chars")]
    pub chunk_chars: usize,
}

fn default_chunk_chars() -> usize {
    DEFAULT_CHUNK_CHARS
}

impl ScriptedReply {
    /// Wraps a reply with default options.
    pub fn new(reply: Reply) -> Self {
        Self {
            reply,
            thinking: None,
            signature: None,
            delay_ms_per_chunk: 0,
            gate: None,
            usage: None,
            repeat_ids: false,
            interleave: false,
            chunk_chars: DEFAULT_CHUNK_CHARS,
        }
    }

    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = Some(thinking.into());
        self
    }

    pub fn with_signature(mut self, signature: impl Into<String>) -> Self {
        self.signature = Some(signature.into());
        self
    }

    pub fn with_delay_ms(mut self, delay_ms_per_chunk: u64) -> Self {
        self.delay_ms_per_chunk = delay_ms_per_chunk;
        self
    }

    pub fn with_gate(mut self, gate: impl Into<String>) -> Self {
        self.gate = Some(gate.into());
        self
    }

    pub fn with_usage(mut self, usage: UsageSpec) -> Self {
        self.usage = Some(usage);
        self
    }

    pub fn with_repeat_ids(mut self) -> Self {
        self.repeat_ids = true;
        self
    }

    pub fn with_interleave(mut self) -> Self {
        self.interleave = true;
        self
    }

    pub fn with_chunk_chars(mut self, chunk_chars: usize) -> Self {
        self.chunk_chars = chunk_chars;
        self
    }
}

impl From<Reply> for ScriptedReply {
    fn from(reply: Reply) -> Self {
        Self::new(reply)
    }
}

/// A reply given to every request whose system prompt contains `system_contains`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub system_contains: String,
    pub reply: ScriptedReply,
}

impl Rule {
    /// Whether the request `body` (either protocol) matches this rule.
    pub fn matches(&self, body: &Value) -> bool {
        system_text(body).contains(&self.system_contains)
    }
}

/// The system prompt of a request: Anthropic's `system` (a string or text blocks), or
/// the `system`/`developer` messages of an OpenAI request, joined.
pub fn system_text(body: &Value) -> String {
    fn text_of(value: &Value) -> String {
        match value {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
    if let Some(system) = body.get("system") {
        return text_of(system);
    }
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| {
            matches!(
                m.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        })
        .map(|m| text_of(m.get("content").unwrap_or(&Value::Null)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An ordered queue of replies (one popped per model request), an optional fallback,
/// rules that answer by the request's system prompt, and an optional context window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    pub replies: Vec<ScriptedReply>,
    pub fallback: Option<ScriptedReply>,
    pub rules: Vec<Rule>,
    pub routes: Vec<super::route::Route>,
    pub max_input_tokens: Option<u64>,
    /// Acts as llama.cpp's `llama-server` with this `n_ctx`: `GET /v1/models` reports
    /// it (`data[].meta.n_ctx`) and requests over it are refused with llama.cpp's body.
    pub llama_n_ctx: Option<u64>,
    /// Recorded requests keep their raw bytes only (their `body` is `Null`).
    pub raw_records: bool,
}

impl Script {
    /// An empty script: every request gets the "script exhausted" error.
    pub fn new() -> Self {
        Self::default()
    }

    /// A script that answers every request with `reply`.
    pub fn always(reply: impl Into<ScriptedReply>) -> Self {
        Self {
            fallback: Some(reply.into()),
            ..Self::default()
        }
    }

    /// Appends a reply.
    pub fn reply(mut self, reply: impl Into<ScriptedReply>) -> Self {
        self.replies.push(reply.into());
        self
    }

    /// Sets the reply used once the queue is empty.
    pub fn fallback(mut self, reply: impl Into<ScriptedReply>) -> Self {
        self.fallback = Some(reply.into());
        self
    }

    /// Answers every request whose system prompt contains `system_contains` with
    /// `reply`, leaving the queue as it is. The first matching rule wins.
    pub fn rule(
        mut self,
        system_contains: impl Into<String>,
        reply: impl Into<ScriptedReply>,
    ) -> Self {
        self.rules.push(Rule {
            system_contains: system_contains.into(),
            reply: reply.into(),
        });
        self
    }

    /// Gives the agent whose requests `when` matches its own queue of `replies` (tried
    /// after the rules, before the shared queue; see `route.rs`).
    pub fn route(
        mut self,
        when: super::route::RouteMatch,
        replies: impl IntoIterator<Item = impl Into<ScriptedReply>>,
    ) -> Self {
        self.routes.push(super::route::Route {
            when,
            replies: replies.into_iter().map(Into::into).collect(),
            fallback: None,
        });
        self
    }

    /// Refuses requests estimated over `tokens` input tokens, as a provider refuses a
    /// prompt over its context window.
    pub fn max_input_tokens(mut self, tokens: u64) -> Self {
        self.max_input_tokens = Some(tokens);
        self
    }

    /// Acts as llama.cpp's `llama-server` serving an `n_ctx`-token model: `GET
    /// /v1/models` reports the window (`data[].meta.n_ctx`), and a request estimated
    /// over it is refused with llama.cpp's exact `exceed_context_size_error` body.
    pub fn llama_cpp(mut self, n_ctx: u64) -> Self {
        self.llama_n_ctx = Some(n_ctx);
        self.max_input_tokens = Some(n_ctx);
        self
    }

    /// Records requests without their parsed body ([`RecordedRequest::body`] is `Null`;
    /// [`RecordedRequest::parse`] reads `raw` again): a benchmark's thousands of large
    /// requests would otherwise hold gigabytes of parsed JSON for the whole run, and the
    /// mock's page faults would be measured as the daemon's latency.
    ///
    /// [`RecordedRequest::body`]: super::RecordedRequest::body
    /// [`RecordedRequest::parse`]: super::RecordedRequest::parse
    pub fn raw_records(mut self) -> Self {
        self.raw_records = true;
        self
    }

    /// Parses the JSON format described in the module documentation.
    pub fn from_json(text: &str) -> anyhow::Result<Self> {
        let value: Value = serde_json::from_str(text).context("script is not valid JSON")?;
        const KEYS: [&str; 5] = ["replies", "fallback", "rules", "routes", "max_input_tokens"];
        let (replies, fallback, rules, routes, max_input_tokens) = match value {
            Value::Array(items) => (items, None, None, None, None),
            Value::Object(mut map) => {
                if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
                    bail!(
                        "unknown key `{key}` in script object (expected one of {})",
                        KEYS.map(|k| format!("`{k}`")).join(", ")
                    );
                }
                let replies = match map.remove("replies") {
                    Some(Value::Array(items)) => items,
                    None => Vec::new(),
                    Some(_) => bail!("`replies` must be an array"),
                };
                (
                    replies,
                    map.remove("fallback"),
                    map.remove("rules"),
                    map.remove("routes"),
                    map.remove("max_input_tokens"),
                )
            }
            _ => bail!("a script must be a JSON array of replies or an object with `replies`"),
        };
        let replies = replies
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                serde_json::from_value(item).with_context(|| format!("invalid reply #{i}"))
            })
            .collect::<anyhow::Result<Vec<ScriptedReply>>>()?;
        let fallback = fallback
            .map(|item| serde_json::from_value(item).context("invalid fallback reply"))
            .transpose()?;
        let rules = rules
            .map(|item| {
                serde_json::from_value(item).context(
                    "invalid `rules`: expected [{\"system_contains\": ..., \"reply\": {...}}]",
                )
            })
            .transpose()?
            .unwrap_or_default();
        let routes = routes
            .map(|item| {
                serde_json::from_value(item).context(
                    "invalid `routes`: expected [{\"first_user_contains\": ..., \"replies\": [...]}]",
                )
            })
            .transpose()?
            .unwrap_or_default();
        let max_input_tokens = max_input_tokens
            .map(|n| {
                n.as_u64()
                    .context("`max_input_tokens` must be a non-negative integer")
            })
            .transpose()?;
        Ok(Self {
            replies,
            fallback,
            rules,
            routes,
            max_input_tokens,
            llama_n_ctx: None,
            raw_records: false,
        })
    }

    /// Reads and parses a script file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read script {}", path.display()))?;
        Self::from_json(&text).with_context(|| format!("in script {}", path.display()))
    }
}

impl From<Vec<ScriptedReply>> for Script {
    fn from(replies: Vec<ScriptedReply>) -> Self {
        Self {
            replies,
            ..Self::default()
        }
    }
}

impl From<Vec<Reply>> for Script {
    fn from(replies: Vec<Reply>) -> Self {
        replies.into_iter().collect()
    }
}

impl<T: Into<ScriptedReply>> FromIterator<T> for Script {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self {
            replies: iter.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_documented_example() {
        let script = Script::from_json(
            r#"{
              "replies": [
                {"type": "tool_calls", "text": "Let me look.", "thinking": "Need the file.",
                 "calls": [{"name": "Read", "input": {"file_path": "src/main.rs"}}]},
                {"type": "error", "status": 429, "retry_after": "0"},
                {"type": "text", "text": "Done.", "delay_ms_per_chunk": 20}
              ],
              "fallback": {"type": "text", "text": "ok"}
            }"#,
        )
        .unwrap();
        assert_eq!(script.replies.len(), 3);
        assert_eq!(
            script.replies[0],
            ScriptedReply::new(Reply::ToolCalls {
                text: Some("Let me look.".into()),
                calls: vec![ToolCall::new("Read", json!({"file_path": "src/main.rs"}))],
            })
            .with_thinking("Need the file.")
        );
        assert_eq!(script.replies[1].reply, Reply::rate_limited("0"));
        assert_eq!(script.replies[2].delay_ms_per_chunk, 20);
        assert_eq!(script.fallback, Some(Reply::text("ok").into()));
    }

    #[test]
    fn parses_array_and_round_trips() {
        let original: Script = vec![
            ScriptedReply::new(Reply::text("hi"))
                .with_gate("g1")
                .with_repeat_ids(),
            Reply::mid_stream_error("partial").into(),
            ScriptedReply::new(Reply::max_tokens("cut")).with_usage(UsageSpec {
                output_tokens: Some(7),
                ..UsageSpec::default()
            }),
        ]
        .into();
        let text = serde_json::to_string(&original.replies).unwrap();
        assert_eq!(Script::from_json(&text).unwrap(), original);
    }

    #[test]
    fn parses_rules_and_the_window() {
        let script = Script::from_json(
            r#"{"replies": [{"type": "text", "text": "loop"}],
                "rules": [{"system_contains": "compactor",
                           "reply": {"type": "text", "text": "Goal"}}],
                "max_input_tokens": 5000}"#,
        )
        .unwrap();
        assert_eq!(
            script,
            Script::new()
                .reply(Reply::text("loop"))
                .rule("compactor", Reply::text("Goal"))
                .max_input_tokens(5000)
        );
        let err = Script::from_json(r#"{"max_input_tokens": "big"}"#).unwrap_err();
        assert!(format!("{err:#}").contains("max_input_tokens"), "{err:#}");
    }

    #[test]
    fn system_text_of_both_protocols() {
        let anthropic = json!({"system": [{"type": "text", "text": "You are a compactor"}]});
        let plain = json!({"system": "You are a compactor"});
        let openai = json!({"messages": [
            {"role": "system", "content": "You are a compactor"},
            {"role": "user", "content": "compactor? no, this is the user"}
        ]});
        let rule = Rule {
            system_contains: "compactor".into(),
            reply: Reply::text("x").into(),
        };
        for body in [&anthropic, &plain, &openai] {
            assert_eq!(system_text(body), "You are a compactor");
            assert!(rule.matches(body));
        }
        let user_only = json!({"messages": [{"role": "user", "content": "compactor"}]});
        assert!(!rule.matches(&user_only));
    }

    #[test]
    fn reports_bad_reply_with_index() {
        let err =
            Script::from_json(r#"[{"type":"text","text":"a"},{"type":"bogus"}]"#).unwrap_err();
        assert!(format!("{err:#}").contains("invalid reply #1"), "{err:#}");
    }
}
