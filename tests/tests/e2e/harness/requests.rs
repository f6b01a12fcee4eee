//! Reading what the mock LLM received: the tool results of a request's last message,
//! and whether a request's history is chain-valid. One reader for every test file.

use serde_json::Value;

/// One `tool_result` block as the provider saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentResult {
    pub tool_use_id: String,
    /// The text, or the JSON of non-string content.
    pub content: String,
    pub is_error: bool,
}

/// The `tool_result` blocks of the last message of a recorded Anthropic request body
/// (none when it has no messages or the last one has no block list).
pub fn last_results(body: &Value) -> Vec<SentResult> {
    let Some(content) = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
    else {
        return Vec::new();
    };
    content
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| SentResult {
            tool_use_id: b["tool_use_id"].as_str().unwrap_or_default().to_string(),
            content: match &b["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            is_error: b["is_error"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// Every tool_use of a recorded request has its tool_result in the next message.
pub fn chain_is_valid(body: &Value) -> Result<(), String> {
    let msgs = body["messages"].as_array().ok_or("no messages")?;
    let ids = |m: &Value, kind: &str, key: &str| -> Vec<String> {
        m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == kind)
            .filter_map(|b| b[key].as_str().map(str::to_string))
            .collect()
    };
    for (i, m) in msgs.iter().enumerate() {
        let calls = ids(m, "tool_use", "id");
        if calls.is_empty() {
            continue;
        }
        let next = msgs
            .get(i + 1)
            .ok_or(format!("message {i} has calls and nothing after it"))?;
        let results = ids(next, "tool_result", "tool_use_id");
        if results != calls {
            return Err(format!("message {i}: calls {calls:?}, results {results:?}"));
        }
    }
    Ok(())
}
