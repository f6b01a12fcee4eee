//! The frame pre-parser: looks at every JSON-RPC message a client sends before
//! jsonrpsee does, because jsonrpsee answers some malformed requests with nothing at
//! all. Its id type holds only unsigned integers, strings and null, so a request whose
//! id is `-1` (valid JSON-RPC), `0.5`, `1e30`, `true`, `{}` or `[]`, or that repeats a
//! key, fails to parse as a request and is then taken for a notification: no reply.
//!
//! [`inspect`] decides, per message, one of three things:
//! - [`Inspected::Forward`]: well-formed, pass it on unchanged;
//! - [`Inspected::Remap`]: well-formed with an id jsonrpsee cannot hold (a negative or
//!   huge integer): the relay passes it on under a token id and puts the original back
//!   into the response (JSON-RPC wants the id echoed exactly);
//! - [`Inspected::Reply`]: malformed; answer with this error response (`Parse error`
//!   or `Invalid Request`, `id: null` unless the id could be read) and pass nothing on.
//!
//! Nesting deeper than the configured bound is refused before anything parses it.

use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// JSON-RPC's `Parse error`.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's `Invalid Request`.
pub const INVALID_REQUEST: i32 = -32600;

/// What to do with one message from a client.
#[derive(Debug, PartialEq, Eq)]
pub enum Inspected<'a> {
    Forward,
    /// Pass on with the id at `span` (byte range of the message) replaced by a token,
    /// and echo `id` (its JSON text) in the response.
    Remap {
        span: Range<usize>,
        id: &'a str,
    },
    Reply(String),
}

/// Inspects one text message. `is_token` says whether a string id is one of the
/// relay's own tokens (a client sending one gets it remapped, so it cannot pose as
/// another request's reply).
pub fn inspect<'a>(
    text: &'a str,
    max_depth: usize,
    is_token: impl Fn(&str) -> bool,
) -> Inspected<'a> {
    if nesting_exceeds(text.as_bytes(), max_depth) {
        return Inspected::Reply(error_response(
            None,
            INVALID_REQUEST,
            &format!("Invalid Request: the message nests deeper than {max_depth} levels"),
        ));
    }
    let Ok(raw) = serde_json::from_str::<&RawValue>(text) else {
        return Inspected::Reply(error_response(
            None,
            PARSE_ERROR,
            "Parse error: the message is not valid JSON",
        ));
    };
    match raw.get().as_bytes().first() {
        Some(b'{') => {}
        Some(b'[') => {
            return Inspected::Reply(error_response(
                None,
                INVALID_REQUEST,
                "Invalid Request: batches are not supported; send one request per message",
            ));
        }
        _ => {
            return Inspected::Reply(error_response(
                None,
                INVALID_REQUEST,
                "Invalid Request: a request is a JSON object",
            ));
        }
    }
    let Ok(Members(members)) = serde_json::from_str::<Members<'a>>(text) else {
        return Inspected::Reply(error_response(
            None,
            PARSE_ERROR,
            "Parse error: the message is not valid JSON",
        ));
    };
    for (i, (key, _)) in members.iter().enumerate() {
        if members[..i].iter().any(|(k, _)| k == key) {
            return Inspected::Reply(error_response(
                None,
                INVALID_REQUEST,
                &format!("Invalid Request: the member `{key}` appears more than once"),
            ));
        }
    }
    let get = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
    let id = get("id").map(|raw| (raw, classify_id(raw.get(), &is_token)));
    let echo = match id {
        Some((raw, IdKind::Plain | IdKind::Remap)) => Some(raw.get()),
        Some((_, IdKind::Bad)) => {
            return Inspected::Reply(error_response(
                None,
                INVALID_REQUEST,
                "Invalid Request: the id must be a string, an integer or null",
            ));
        }
        None => None,
    };
    let invalid = |why: &str| Inspected::Reply(error_response(echo, INVALID_REQUEST, why));
    if get("jsonrpc").map(RawValue::get) != Some("\"2.0\"") {
        return invalid("Invalid Request: `jsonrpc` must be \"2.0\"");
    }
    if !get("method").is_some_and(|m| m.get().starts_with('"')) {
        return invalid("Invalid Request: `method` must be a string");
    }
    if let Some(params) = get("params")
        && !matches!(params.get().as_bytes().first(), Some(b'{' | b'['))
    {
        return invalid("Invalid Request: `params` must be an object or an array");
    }
    match id {
        Some((raw, IdKind::Remap)) => {
            let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            Inspected::Remap {
                span: start..start + raw.get().len(),
                id: raw.get(),
            }
        }
        _ => Inspected::Forward,
    }
}

/// A JSON-RPC error response; `id` is the JSON text to echo (`null` when `None`).
pub fn error_response(id: Option<&str>, code: i32, message: &str) -> String {
    let message = serde_json::Value::String(message.to_string());
    format!(
        "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":{code},\"message\":{message}}},\"id\":{}}}",
        id.unwrap_or("null")
    )
}

enum IdKind {
    /// jsonrpsee holds it as it is.
    Plain,
    /// Valid JSON-RPC, but jsonrpsee cannot hold it.
    Remap,
    /// Not a valid id.
    Bad,
}

fn classify_id(raw: &str, is_token: &impl Fn(&str) -> bool) -> IdKind {
    match raw.as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<String>(raw) {
            Ok(s) if is_token(&s) => IdKind::Remap,
            Ok(_) => IdKind::Plain,
            Err(_) => IdKind::Bad,
        },
        Some(b'n') => IdKind::Plain,
        Some(b'-' | b'0'..=b'9') => {
            let digits = raw.strip_prefix('-').unwrap_or(raw);
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                // A fraction or an exponent: JSON-RPC ids are integers.
                IdKind::Bad
            } else if raw.starts_with('-') || raw.parse::<u64>().is_err() {
                IdKind::Remap
            } else {
                IdKind::Plain
            }
        }
        _ => IdKind::Bad,
    }
}

/// Whether the JSON text nests objects and arrays deeper than `max` (strings skipped).
fn nesting_exceeds(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A JSON object's members in order, duplicates kept, values as raw text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Inspected<'_> {
        inspect(text, 8, |s| s.starts_with("relay-"))
    }

    fn reply(text: &str) -> serde_json::Value {
        match check(text) {
            Inspected::Reply(r) => serde_json::from_str(&r).unwrap(),
            other => panic!("{text}: expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn well_formed_requests_and_notifications_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"daemon.info","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"notify"}"#,
            r#" { "method" : "x" , "jsonrpc" : "2.0" , "id" : 7 } "#,
        ] {
            assert_eq!(check(ok), Inspected::Forward, "{ok}");
        }
    }

    #[test]
    fn valid_ids_jsonrpsee_cannot_hold_are_remapped_and_echoed() {
        let text = r#"{"jsonrpc":"2.0","id":-1,"method":"x"}"#;
        let Inspected::Remap { span, id } = check(text) else {
            panic!()
        };
        assert_eq!(id, "-1");
        assert_eq!(&text[span], "-1");
        for t in [
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":"relay-9","method":"x"}"#,
        ] {
            assert!(matches!(check(t), Inspected::Remap { .. }), "{t}");
        }
        // A malformed request with such an id still gets it echoed.
        assert_eq!(reply(r#"{"jsonrpc":"2.0","id":-1}"#)["id"], -1);
    }

    #[test]
    fn odd_ids_get_invalid_request_with_a_null_id() {
        for id in [
            "0.5",
            "1e30",
            "-2.5E3",
            "true",
            "false",
            "{}",
            "[]",
            r#"{"a":1}"#,
        ] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#);
            let r = reply(&text);
            assert_eq!(r["id"], serde_json::Value::Null, "{text}");
            assert_eq!(r["error"]["code"], INVALID_REQUEST, "{text}");
            assert_eq!(r["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn duplicated_keys_and_bad_shapes_are_invalid_requests() {
        let r = reply(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#);
        assert_eq!(r["id"], serde_json::Value::Null);
        assert!(r["error"]["message"].as_str().unwrap().contains("`id`"));
        for (text, id) in [
            (r#"{"jsonrpc":"1.0","id":3,"method":"x"}"#, json_id(3)),
            (r#"{"jsonrpc":"2.0","id":3,"method":5}"#, json_id(3)),
            (r#"{"jsonrpc":"2.0","id":3}"#, json_id(3)),
            (
                r#"{"jsonrpc":"2.0","id":"s","method":"x","params":3}"#,
                "s".into(),
            ),
            (r#"{"jsonrpc":"2.0"}"#, serde_json::Value::Null),
            (r#"[]"#, serde_json::Value::Null),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#,
                serde_json::Value::Null,
            ),
            (r#""just a string""#, serde_json::Value::Null),
            (r#"42"#, serde_json::Value::Null),
        ] {
            let r = reply(text);
            assert_eq!(r["id"], id, "{text}");
            assert_eq!(r["error"]["code"], INVALID_REQUEST, "{text}");
        }
    }

    fn json_id(n: u64) -> serde_json::Value {
        serde_json::Value::from(n)
    }

    #[test]
    fn broken_json_is_a_parse_error() {
        for text in [
            "",
            "{",
            r#"{"jsonrpc":"2.0","id":1,"method":"x""#,
            "nul",
            "{\"a\":\"\\x\"}",
        ] {
            let r = reply(text);
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{text:?}");
            assert_eq!(r["id"], serde_json::Value::Null);
        }
    }

    #[test]
    fn nesting_is_bounded_and_strings_do_not_count() {
        let deep = format!("{}{}", "[".repeat(9), "]".repeat(9));
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{deep}}}"#);
        let r = reply(&text);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("deeper than 8")
        );
        let in_string = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":["{}"]}}"#,
            "[{".repeat(50)
        );
        assert_eq!(check(&in_string), Inspected::Forward);
        assert!(nesting_exceeds(b"[[[", 2));
        assert!(!nesting_exceeds(br#"["\"[[["]"#, 1));
    }
}
