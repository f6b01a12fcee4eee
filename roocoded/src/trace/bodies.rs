//! Keeping a model call's raw bodies (`trace.bodies`): the request as sent and the
//! answer as assembled (`content`, `stop_reason`, `usage` — what a replay serves back),
//! both scrubbed of the call's secrets by value, up to `trace.max_body_mb` per session.
//! The agent loop and compaction keep theirs through a [`BodyRecorder`] (what to scrub,
//! the cap) handed with the call to the recorder's writer (`trace::writer`).
//!
//! Each request resends the system prompt, the tools and the whole conversation, so
//! bodies kept whole grow with the square of a session's length. A request is kept
//! [`split`]: its `system`, its `tools` and each of its `messages` stored once per
//! session by content, the request itself a skeleton naming them (`{"$part": hash}`);
//! [`join`] puts it back together byte for byte as JSON.

use std::collections::HashMap;

use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::trace::TraceBody;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::scrub::Scrubber;
use crate::agent::AgentError;
use crate::config::Config;
use crate::store::Store;

/// What keeping a call's bodies needs: the secrets to scrub and the session's cap.
#[derive(Debug, Clone)]
pub struct BodyRecorder {
    scrubber: Scrubber,
    cap: u64,
}

impl BodyRecorder {
    /// The recorder of a call made with the client environment `env` under `config`;
    /// `None` when bodies are not kept (`trace.bodies: false`, `trace.record: false`).
    pub fn new(env: &std::collections::BTreeMap<String, String>, config: &Config) -> Option<Self> {
        let cap = config.trace_bodies_cap()?;
        Some(BodyRecorder {
            scrubber: Scrubber::for_turn(env, config),
            cap,
        })
    }

    /// The secrets to scrub out of the bodies.
    pub fn scrubber(&self) -> &Scrubber {
        &self.scrubber
    }

    /// Bytes of bodies a session may keep.
    pub fn cap(&self) -> u64 {
        self.cap
    }
}

/// The key of a part in a request's skeleton.
const PART: &str = "$part";

/// A request body as it is kept: a skeleton and the parts it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitRequest {
    pub skeleton: String,
    /// (hash, JSON text) of each part the skeleton names, in order.
    pub parts: Vec<(String, String)>,
}

fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// A JSON object's fields in their order, each value as its text in the input.
struct Fields<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Fields<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Fields<'a>, M::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// `{"$part": hash}` as it stands in a skeleton.
fn reference(hash: &str) -> String {
    format!("{{\"{PART}\":\"{hash}\"}}")
}

/// The hash a skeleton's value names, when it is a part's reference.
fn referenced(value: &str) -> Option<&str> {
    let rest = value.strip_prefix("{\"$part\":\"")?;
    let hash = rest.strip_suffix("\"}")?;
    hash.chars().all(|c| c.is_ascii_hexdigit()).then_some(hash)
}

/// `request` (JSON) with its `system`, `tools` and each message taken out as parts,
/// exactly as they were sent (nothing is parsed into values or written again); a body
/// that is not a JSON object is kept whole.
pub fn split(request: &str) -> SplitRequest {
    let whole = || SplitRequest {
        skeleton: request.to_string(),
        parts: Vec::new(),
    };
    let Ok(Fields(fields)) = serde_json::from_str::<Fields>(request) else {
        return whole();
    };
    let mut parts = Vec::new();
    let mut take = |raw: &RawValue| {
        let h = hash(raw.get());
        parts.push((h.clone(), raw.get().to_string()));
        reference(&h)
    };
    let mut skeleton = String::with_capacity(256);
    skeleton.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            skeleton.push(',');
        }
        let Ok(name) = serde_json::to_string(key) else {
            return whole();
        };
        skeleton.push_str(&name);
        skeleton.push(':');
        match key.as_str() {
            "system" | "tools" => skeleton.push_str(&take(value)),
            "messages" => match serde_json::from_str::<Vec<&RawValue>>(value.get()) {
                Ok(messages) => {
                    let named: Vec<String> = messages.into_iter().map(&mut take).collect();
                    skeleton.push('[');
                    skeleton.push_str(&named.join(","));
                    skeleton.push(']');
                }
                Err(_) => skeleton.push_str(value.get()),
            },
            _ => skeleton.push_str(value.get()),
        }
    }
    skeleton.push('}');
    SplitRequest { skeleton, parts }
}

/// The hashes of the parts `skeleton` names.
pub fn part_hashes(skeleton: &str) -> Vec<String> {
    let marker = format!("{{\"{PART}\":\"");
    skeleton
        .match_indices(&marker)
        .filter_map(|(at, _)| {
            let rest = &skeleton[at..];
            let end = rest.find('}')?;
            referenced(&rest[..=end]).map(str::to_string)
        })
        .collect()
}

/// The request `skeleton` names with its `parts` (by hash) put back, byte for byte as
/// it was sent; a part that is missing stays a reference.
pub fn join(skeleton: &str, parts: &HashMap<String, String>) -> String {
    let Ok(Fields(fields)) = serde_json::from_str::<Fields>(skeleton) else {
        return skeleton.to_string();
    };
    let put_back = |text: &str| -> String {
        match referenced(text).and_then(|h| parts.get(h)) {
            Some(part) => part.clone(),
            None => text.to_string(),
        }
    };
    let mut out = String::with_capacity(skeleton.len() * 8);
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
        out.push(':');
        let text = value.get();
        match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) if text.starts_with('[') => {
                let items: Vec<String> = items.iter().map(|v| put_back(v.get())).collect();
                out.push('[');
                out.push_str(&items.join(","));
                out.push(']');
            }
            _ => out.push_str(&put_back(text)),
        }
    }
    out.push('}');
    out
}

/// Agents nest this deep at most when a call is looked for among them.
const MAX_DEPTH: u32 = 8;

/// The kept bodies of the model call `wanted` (its id, or a unique prefix of it) made by
/// session `session_id` or by one of the agents it started.
pub async fn read(store: &Store, session_id: &str, wanted: &str) -> Result<TraceBody, AgentError> {
    let mut sessions = vec![(session_id.to_string(), 0)];
    let mut found = Vec::new();
    while let Some((id, depth)) = sessions.pop() {
        found.extend(
            store
                .body_ids(&id)
                .await?
                .into_iter()
                .filter(|call| call.starts_with(wanted)),
        );
        if depth < MAX_DEPTH {
            for child in store.children(&id).await? {
                sessions.push((child.id, depth + 1));
            }
        }
    }
    let exact = found.iter().position(|c| c == wanted);
    let id = match (exact, found.as_slice()) {
        (Some(at), _) => found.swap_remove(at),
        (None, [only]) => only.clone(),
        (None, []) => {
            return Err(AgentError::Invalid(format!(
                "no kept bodies of a model call `{wanted}` in session {session_id}: `roocode-cli trace --json` lists each call's model_call_id and has_bodies"
            )));
        }
        (None, several) => {
            return Err(AgentError::Invalid(format!(
                "`{wanted}` names {} model calls: give more of the id",
                several.len()
            )));
        }
    };
    let Some(row) = store.body(&id).await? else {
        return Err(AgentError::Invalid(format!(
            "the bodies of model call {id} are gone (pruned meanwhile)"
        )));
    };
    let request = join(&row.skeleton, &row.parts);
    let as_json = |text: &str| {
        serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.to_string()))
    };
    Ok(TraceBody {
        session_id: row.session_id,
        model_call_id: row.model_call_id,
        request: as_json(&request),
        response: as_json(&row.response),
    })
}

/// A recorded answer as the recorder keeps it (`trace::writer`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RecordedAnswer {
    pub content: Vec<ContentBlock>,
    pub stop_reason: String,
    #[serde(default)]
    pub usage: Usage,
}

impl RecordedAnswer {
    /// The answer of a recorded response body.
    pub fn parse(response: &str) -> Result<RecordedAnswer, serde_json::Error> {
        serde_json::from_str(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_splits_into_shared_parts_and_joins_back() {
        let first = serde_json::json!({
            "model": "m", "max_tokens": 100, "stream": true,
            "system": [{"type": "text", "text": "You are RooCode."}],
            "tools": [{"name": "Read", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "hi"}],
        })
        .to_string();
        let mut second: Value = serde_json::from_str(&first).unwrap();
        second["messages"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"role": "assistant", "content": "hello"}));
        let second = second.to_string();
        let (a, b) = (split(&first), split(&second));
        assert_eq!(a.parts.len(), 3);
        assert_eq!(b.parts.len(), 4);
        // The system prompt, the tools and the first message are the same parts.
        assert!(a.parts.iter().all(|p| b.parts.contains(p)), "{a:?} {b:?}");
        assert!(!b.skeleton.contains("You are RooCode"), "{}", b.skeleton);
        let all: HashMap<String, String> = b.parts.iter().cloned().collect();
        let mut named: Vec<String> = b.parts.iter().map(|(h, _)| h.clone()).collect();
        let mut found = part_hashes(&b.skeleton);
        named.sort();
        found.sort();
        assert_eq!(found, named);
        // Byte for byte as it was sent, its fields in their order.
        assert_eq!(join(&b.skeleton, &all), second);
        let spaced = "{\"stream\": true, \"messages\": [ {\"role\":\"user\"} ]}";
        let kept = split(spaced);
        let named: HashMap<String, String> = kept.parts.iter().cloned().collect();
        assert_eq!(
            serde_json::from_str::<Value>(&join(&kept.skeleton, &named)).unwrap(),
            serde_json::from_str::<Value>(spaced).unwrap()
        );
        // Not JSON: kept whole.
        let raw = split("not json");
        assert_eq!((raw.skeleton.as_str(), raw.parts.len()), ("not json", 0));
        // A part that is gone stays a reference.
        let partial = join(&b.skeleton, &HashMap::new());
        assert!(partial.contains("$part"), "{partial}");
    }

    #[test]
    fn a_kept_answer_reads_back() {
        let body = serde_json::json!({
            "content": [{"type": "text", "text": "hi"},
                        {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "a"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 0, "cache_write_tokens": 0},
        });
        let answer = RecordedAnswer::parse(&body.to_string()).unwrap();
        assert_eq!(answer.content.len(), 2);
        assert_eq!(answer.stop_reason, "tool_use");
        assert_eq!(answer.usage.input_tokens, 10);
    }
}
