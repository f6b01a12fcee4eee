//! The schema a tool whose schema is taken as given (an MCP server's) is sent to the
//! model with. Servers send what their SDK produced: `{}`, no `type`, `$ref`s into
//! `$defs` or `definitions`, a `$schema` of draft-07. Arguments are validated against
//! that schema as it is; the model gets an equivalent one that every provider takes:
//! an object with `properties`, its local `$ref`s inlined (a recursive one, past its
//! first level, becomes an open schema), no `$schema` and no definitions left over.

use serde_json::{Map, Value};

/// How deep references are followed into each other before the rest is left open.
const MAX_REF_DEPTH: usize = 8;

/// `schema` as the model is sent it, or why it cannot describe a tool's input.
pub fn for_model(schema: &Value) -> Result<Value, String> {
    let Value::Object(top) = schema else {
        return Err("the schema must be a JSON object".into());
    };
    match top.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(format!(
                "a tool's input must be an object, and this schema has \"type\": {other}"
            ));
        }
    }
    let defs = definitions(top);
    let mut out = inline(schema, &defs, 0);
    if let Value::Object(out) = &mut out {
        out.remove("$schema");
        out.remove("$defs");
        out.remove("definitions");
        out.insert("type".into(), Value::String("object".into()));
        out.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    Ok(out)
}

/// The named definitions a local `$ref` may point at, by their reference.
fn definitions(top: &Map<String, Value>) -> Map<String, Value> {
    let mut defs = Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(named)) = top.get(key) {
            for (name, def) in named {
                defs.insert(format!("#/{key}/{}", escape(name)), def.clone());
            }
        }
    }
    defs
}

/// A name as it appears in a JSON pointer.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn inline(value: &Value, defs: &Map<String, Value>, depth: usize) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(target) = defs.get(reference)
            {
                if depth >= MAX_REF_DEPTH {
                    return Value::Object(Map::new());
                }
                let mut resolved = inline(target, defs, depth + 1);
                // Siblings of `$ref` (a description, say) are kept beside the target.
                if let Value::Object(resolved) = &mut resolved {
                    for (k, v) in map {
                        if k != "$ref" {
                            resolved.insert(k.clone(), inline(v, defs, depth));
                        }
                    }
                }
                return resolved;
            }
            Value::Object(
                map.iter()
                    .filter(|(k, _)| depth == 0 || !matches!(k.as_str(), "$defs" | "definitions"))
                    .map(|(k, v)| (k.clone(), inline(v, defs, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, defs, depth)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_or_typeless_schema_becomes_an_object_with_properties() {
        assert_eq!(
            for_model(&json!({})).unwrap(),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            for_model(&json!({"properties": {"q": {"type": "string"}}})).unwrap(),
            json!({"type": "object", "properties": {"q": {"type": "string"}}})
        );
        assert!(for_model(&json!({"type": "string"})).is_err());
        assert!(for_model(&json!([1])).is_err());
    }

    #[test]
    fn local_references_are_inlined_and_the_definitions_dropped() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "query": {"$ref": "#/definitions/Query", "description": "what to find"},
                "limit": {"type": "integer"}
            },
            "required": ["query"],
            "definitions": {"Query": {"type": "object", "properties": {"text": {"type": "string"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}}}},
            "$defs": {"Tag": {"type": "string", "enum": ["a", "b"]}}
        });
        let out = for_model(&schema).unwrap();
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "object", "description": "what to find", "properties": {"text": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}},
                    "limit": {"type": "integer"}
                },
                "required": ["query"]
            })
        );
    }

    #[test]
    fn a_recursive_reference_ends_in_an_open_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}
        });
        let out = for_model(&schema).unwrap();
        let mut node = &out["properties"]["tree"];
        for _ in 0..MAX_REF_DEPTH - 1 {
            node = &node["properties"]["child"];
        }
        assert_eq!(node["properties"]["child"], json!({}));
        assert!(!out.to_string().contains("$ref"));
    }

    #[test]
    fn an_unknown_reference_is_left_as_it_is() {
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "https://example.invalid/s.json"}}});
        assert_eq!(
            for_model(&schema).unwrap()["properties"]["x"]["$ref"],
            "https://example.invalid/s.json"
        );
    }
}
