//! Routing replies by agent: with several agents talking to one mock (a parent and its
//! sub-agents), each [`Route`] has its own queue of replies for the requests of one
//! agent, told apart by a marker in its first or latest user message (a typed child's
//! task is its first message; a fork shares its parent's first message and is told
//! apart by its directive, in its latest one) or by a request header. Routes are tried
//! in order after the rules (which name calls such as a compaction's by their system
//! prompt) and before the shared queue; a matching route whose queue is empty
//! answers with its fallback, else with the "script exhausted" error, never with another
//! agent's replies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::script::ScriptedReply;

/// Which requests a route answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteMatch {
    /// The first user message's text contains this.
    FirstUserContains(String),
    /// The latest user message's text (tool results included) contains this.
    LatestUserContains(String),
    /// Any user message contains this.
    AnyUserContains(String),
    /// The request has this header with this value.
    Header { name: String, value: String },
}

impl RouteMatch {
    pub fn matches(
        &self,
        headers: &std::collections::BTreeMap<String, String>,
        body: &Value,
    ) -> bool {
        self.matches_texts(headers, &user_texts(body))
    }

    /// [`RouteMatch::matches`] with the request's user texts read already
    /// ([`user_texts`]): one read serves every route.
    pub fn matches_texts(
        &self,
        headers: &std::collections::BTreeMap<String, String>,
        users: &[String],
    ) -> bool {
        match self {
            RouteMatch::FirstUserContains(m) => users.first().is_some_and(|t| t.contains(m)),
            RouteMatch::LatestUserContains(m) => users.last().is_some_and(|t| t.contains(m)),
            RouteMatch::AnyUserContains(m) => users.iter().any(|t| t.contains(m)),
            RouteMatch::Header { name, value } => headers
                .get(&name.to_ascii_lowercase())
                .is_some_and(|v| v == value),
        }
    }
}

/// One agent's replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Route {
    #[serde(flatten)]
    pub when: RouteMatch,
    #[serde(default)]
    pub replies: Vec<ScriptedReply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<ScriptedReply>,
}

/// The text of each user message of a request (either protocol), oldest first: text
/// parts and tool results joined by newlines.
pub fn user_texts(body: &Value) -> Vec<String> {
    fn text_of(content: &Value) -> String {
        match content {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .map(|p| match p.get("type").and_then(Value::as_str) {
                    Some("tool_result") => text_of(p.get("content").unwrap_or(&Value::Null)),
                    _ => p
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| matches!(m.get("role").and_then(Value::as_str), Some("user" | "tool")))
        .map(|m| text_of(m.get("content").unwrap_or(&Value::Null)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    #[test]
    fn routes_match_first_latest_and_headers() {
        let body = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "TASK-A look"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"},
                                          {"type": "text", "text": "<fork-directive>B</fork-directive>"}]},
        ]});
        let headers = BTreeMap::from([("x-agent".to_string(), "scout".to_string())]);
        assert!(RouteMatch::FirstUserContains("TASK-A".into()).matches(&headers, &body));
        assert!(!RouteMatch::FirstUserContains("fork-directive".into()).matches(&headers, &body));
        assert!(RouteMatch::LatestUserContains("fork-directive".into()).matches(&headers, &body));
        assert!(RouteMatch::AnyUserContains("TASK-A".into()).matches(&headers, &body));
        let header = RouteMatch::Header {
            name: "X-Agent".into(),
            value: "scout".into(),
        };
        assert!(header.matches(&headers, &body));
        let openai = json!({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "TASK-C"}]});
        assert!(RouteMatch::FirstUserContains("TASK-C".into()).matches(&headers, &openai));
    }

    #[test]
    fn routes_read_from_json() {
        let route: Route = serde_json::from_value(json!({
            "first_user_contains": "TASK-A",
            "replies": [{"type": "text", "text": "a"}]
        }))
        .unwrap();
        assert_eq!(route.when, RouteMatch::FirstUserContains("TASK-A".into()));
        assert_eq!(route.replies.len(), 1);
    }
}
