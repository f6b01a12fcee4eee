//! What the model receives: the name, description and input schema of every built-in
//! tool, checked against `schemas.json`, captured from the hand-written schemas before
//! they were derived from the argument structs. Run with `UPDATE_TOOL_SCHEMAS=1` to
//! rewrite the fixture after a deliberate change.

use serde_json::{Value, json};

use super::Registry;

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
