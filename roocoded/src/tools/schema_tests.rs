//! What the model receives: the name, description and input schema of every built-in
//! tool, checked against `schemas.json`, captured from the hand-written schemas before
//! they were derived from the argument structs. Run with `UPDATE_TOOL_SCHEMAS=1` to
//! rewrite the fixture after a deliberate change.

use serde_json::{Value, json};

use super::Registry;
use super::test_support::{Project, builtin_inputs};

const FIXTURE: &str = "src/tools/schemas.json";

fn exported() -> Value {
    let defs: Vec<Value> = Registry::with_builtins()
        .defs()
        .into_iter()
        .map(|d| {
            json!({
                "name": d.name.as_ref(),
                "description": d.description.as_ref(),
                "input_schema": d.input_schema,
            })
        })
        .collect();
    Value::Array(defs)
}

#[test]
fn every_builtin_schema_is_what_the_model_received() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let now = exported();
    if std::env::var_os("UPDATE_TOOL_SCHEMAS").is_some() {
        let text = serde_json::to_string_pretty(&now).unwrap();
        std::fs::write(&path, text + "\n").unwrap();
    }
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (Value::Array(want), Value::Array(got)) = (&fixture, &now) else {
        panic!("the fixture is not a list");
    };
    assert_eq!(want.len(), got.len());
    for (want, got) in want.iter().zip(got) {
        assert_eq!(want, got, "tool {}", want["name"]);
    }
}

#[test]
fn every_builtin_rejects_an_unknown_field() {
    let project = Project::new();
    let registry = Registry::with_builtins();
    for (tool, mut input) in builtin_inputs() {
        assert!(registry.validate(tool, &input).is_ok(), "{tool} {input}");
        let mut valid: Vec<String> = registry.get(tool).unwrap().input_schema()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        valid.sort();
        input["bogus"] = json!(1);
        let listed = if valid.is_empty() {
            "this tool takes no parameters".to_string()
        } else {
            format!("the valid parameters are {}", valid.join(", "))
        };
        assert_eq!(
            registry.validate(tool, &input),
            Err(format!(
                "Invalid input for tool {tool}:\n\
                 - (root): Additional properties are not allowed ('bogus' was unexpected); \
                 {listed}"
            ))
        );
        // The typed arguments refuse it too, should a call ever skip the schema.
        let parsed = registry.get(tool).unwrap().prepare(&input, &project.ctx);
        assert!(parsed.is_err(), "{tool} accepted an unknown field");
    }
}

#[test]
fn nested_objects_reject_unknown_fields() {
    let registry = Registry::with_builtins();
    let todo = json!({"todos": [{"content": "a", "status": "pending", "activeForm": "b", "x": 1}]});
    assert!(registry.validate("TodoWrite", &todo).is_err());
    let question = json!({"questions": [{"question": "q", "header": "h", "multiSelect": false, "x": 1,
        "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}]}]});
    assert!(registry.validate("AskUserQuestion", &question).is_err());
    let choice = json!({"questions": [{"question": "q", "header": "h", "multiSelect": false,
        "options": [{"label": "a", "description": "", "x": 1}, {"label": "b", "description": ""}]}]});
    assert!(registry.validate("AskUserQuestion", &choice).is_err());
}

/// The shaping rules of `schema.rs`, on a type that needs each of them.
#[test]
fn derived_schemas_are_shaped_like_hand_written_ones() {
    /// A type's own doc: not a parameter description.
    #[derive(schemars::JsonSchema)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Kind {
        /// Documented variants would make a `oneOf` of `const`s.
        One,
        /// (All or none documented, or the undocumented come first.)
        Two,
    }
    /// Neither is the struct's.
    #[derive(schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        /// How many
        #[schemars(range(min = 1))]
        count: Option<u64>,
        /// Which kind
        kind: Option<Kind>,
        kinds: Vec<Kind>,
    }
    assert_eq!(
        super::schema::input_schema::<Args>(),
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 1, "description": "How many"},
                "kind": {"type": "string", "enum": ["one", "two"], "description": "Which kind"},
                "kinds": {"type": "array", "items": {"type": "string", "enum": ["one", "two"]}}
            },
            "required": ["kinds"],
            "additionalProperties": false
        })
    );
}
