//! Input schemas derived from argument structs (`schemars`), shaped like the schemas the
//! model has always received: no `$schema`, `title` or `format`, every subschema inlined
//! (no `$ref`/`$defs`), optional fields simply not required (never widened to `null`),
//! and unit enums as `{"type": "string", "enum": [...]}`.
//!
//! Descriptions come from the doc comments of fields only: a type's own doc comment (the
//! argument struct's, an enum's) is for readers of the code, so it is dropped where the
//! type is inlined and at the root (the tool's description is its manual).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The input schema of a tool whose arguments are `T`.
pub fn input_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            // Kept as references here so that inlining can drop the types' own docs.
            s.inline_subschemas = false;
        })
        .into_generator();
    let mut root = generator.into_root_schema_for::<T>().to_value();
    let defs = match root.as_object_mut().and_then(|o| o.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    if let Some(object) = root.as_object_mut() {
        object.remove("description");
        // A tool without parameters still says so (`properties: {}`), as providers
        // and clients expect of a tool's input schema.
        object
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    tidy(&mut root, &defs, 0);
    root
}

/// Deepest nesting of references inlined; argument types are not recursive, so this
/// only stops a mistaken one from looping.
const MAX_DEPTH: usize = 32;

fn tidy(schema: &mut Value, defs: &Map<String, Value>, depth: usize) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if depth < MAX_DEPTH
        && let Some(Value::String(reference)) = object.remove("$ref")
        && let Some(def) = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
    {
        let mut inlined = def.clone();
        if let Some(def) = inlined.as_object_mut() {
            def.remove("description");
            // What the field says about itself (its doc, its default) wins.
            def.extend(std::mem::take(object));
            *object = std::mem::take(def);
        }
    }
    object.remove("title");
    object.remove("format");
    object.remove("$schema");
    not_nullable(object);
    consts_to_enum(object);
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Some(properties) = value.as_object_mut() {
                    for property in properties.values_mut() {
                        tidy(property, defs, depth + 1);
                    }
                }
            }
            "items" | "additionalProperties" => tidy(value, defs, depth + 1),
            "anyOf" | "oneOf" | "allOf" => {
                if let Some(branches) = value.as_array_mut() {
                    for branch in branches {
                        tidy(branch, defs, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    // A reference inlined above may itself start with one.
    if depth < MAX_DEPTH && object.contains_key("$ref") {
        tidy(schema, defs, depth + 1);
    }
}

/// `Option<T>` is "may be left out", not "may be null": undo the `null` schemars adds.
fn not_nullable(object: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let is_null = |b: &Value| b.get("type").and_then(Value::as_str) == Some("null");
    let kept: Vec<Value> = branches.iter().filter(|b| !is_null(b)).cloned().collect();
    if kept.len() < branches.len()
        && let [Value::Object(only)] = kept.as_slice()
    {
        object.remove("anyOf");
        for (key, value) in only {
            object.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// A unit enum whose variants have doc comments comes out as a `oneOf` of documented
/// `const`s (undocumented variants first, in one `enum` branch); the model has always
/// been given a plain string `enum`.
fn consts_to_enum(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("oneOf") else {
        return;
    };
    let mut values = Vec::new();
    for branch in branches {
        match (branch.get("const"), branch.get("enum")) {
            (Some(c @ Value::String(_)), None) => values.push(c.clone()),
            (None, Some(Value::Array(e))) if e.iter().all(Value::is_string) => {
                values.extend(e.iter().cloned());
            }
            _ => return,
        }
    }
    object.remove("oneOf");
    object.insert("type".into(), Value::String("string".into()));
    object.insert("enum".into(), Value::Array(values));
}
