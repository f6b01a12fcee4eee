//! A server entry as the editors see it: the fields written for a new entry (in the
//! order they are written, values as JSON, which is valid YAML too), how one value is
//! spelled on one line, and what an existing entry says about being switched on.

use std::collections::BTreeMap;

use serde_json::Value;

/// The fields of an entry to write, in order.
pub type Fields = Vec<(&'static str, Value)>;

/// A stdio server's fields: `type`, `command`, then `args` and `env` when given.
pub fn stdio(command: &str, args: &[String], env: &BTreeMap<String, String>) -> Fields {
    let mut fields: Fields = vec![
        ("type", Value::from("stdio")),
        ("command", Value::from(command)),
    ];
    if !args.is_empty() {
        fields.push(("args", Value::from(args.to_vec())));
    }
    if !env.is_empty() {
        fields.push(("env", string_map(env)));
    }
    fields
}

/// An http server's fields: `type`, `url`, then `headers` when given.
pub fn http(url: &str, headers: &BTreeMap<String, String>) -> Fields {
    let mut fields: Fields = vec![("type", Value::from("http")), ("url", Value::from(url))];
    if !headers.is_empty() {
        fields.push(("headers", string_map(headers)));
    }
    fields
}

/// A switch-only entry: it turns an earlier scope's server on or off.
pub fn switch(enabled: bool) -> Fields {
    vec![("enabled", Value::Bool(enabled))]
}

fn string_map(map: &BTreeMap<String, String>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect(),
    )
}

/// The fields as one JSON object (what a parsed file must then hold).
pub fn to_object(fields: &[(&str, Value)]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// `value` on one line as JSON with a space after `,` and `:` (`["-y", "srv"]`,
/// `{"K": "V"}`): valid JSON, and valid YAML whose strings are double-quoted, so
/// `:`, `#`, quotes and `${X}` need no thought.
pub fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), inline(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

/// What a file's entry for a server says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The entry holds nothing but `enabled`: it switches an earlier scope's server.
    pub switch_only: bool,
    /// Its `enabled`, if it has one.
    pub enabled: Option<bool>,
}

impl Held {
    /// Reads an entry from its keys and its `enabled` value.
    pub fn of<'a>(keys: impl Iterator<Item = &'a str>, enabled: Option<bool>) -> Held {
        let mut only_enabled = true;
        let mut any = false;
        for key in keys {
            any = true;
            only_enabled &= key == "enabled";
        }
        Held {
            switch_only: any && only_enabled,
            enabled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_in_the_written_order() {
        let env = BTreeMap::from([("TOKEN".to_string(), "${TOKEN}".to_string())]);
        let fields = stdio("npx", &["-y".into(), "srv".into()], &env);
        let keys: Vec<_> = fields.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["type", "command", "args", "env"]);
        let keys: Vec<_> = http("https://x/mcp", &BTreeMap::new())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["type", "url"]);
    }

    #[test]
    fn values_are_json_on_one_line() {
        let v = serde_json::json!({"K": "a: b # \"c\" ${X}", "L": ["x", true]});
        assert_eq!(
            inline(&v),
            r#"{"K": "a: b # \"c\" ${X}", "L": ["x", true]}"#
        );
        assert_eq!(inline(&Value::from("tab\there")), r#""tab\there""#);
    }

    #[test]
    fn a_switch_is_an_entry_of_nothing_but_enabled() {
        assert!(Held::of(["enabled"].into_iter(), Some(false)).switch_only);
        assert!(!Held::of(["command", "enabled"].into_iter(), Some(false)).switch_only);
        assert!(!Held::of([].into_iter(), None).switch_only);
    }
}
