use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::context::budget::estimate_tokens;
use crate::tools::{Registry, Selection, select};

#[test]
fn short_descriptions_are_first_sentences() {
    let cases = [
        ("Reads a file.\n\nUsage: ...", "Reads a file."),
        (
            "Searches with a regex (ripgrep's syntax, e.g. `a.*b`). Then more.",
            "Searches with a regex (ripgrep's syntax, e.g. `a.*b`).",
        ),
        ("No full stop at all", "No full stop at all"),
        ("Version 1.5 is parsed. Next.", "Version 1.5 is parsed."),
        ("", ""),
    ];
    for (long, short) in cases {
        assert_eq!(short_description(long), short, "{long}");
    }
    let long = format!(
        "Stops a shell, {}, then more.",
        "and its processes ".repeat(20)
    );
    let short = short_description(&long);
    assert!(short.chars().count() <= MAX_SHORT_CHARS + 1, "{short}");
    assert!(short.ends_with('.'), "{short}");
}

#[test]
fn small_windows_strip_schema_descriptions_and_keep_the_rest() {
    let spec = ToolSpec {
        name: Arc::from("T"),
        description: Arc::from("Does a thing. At length."),
        input_schema: json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "description": "long words"},
            "b": {"type": "array", "items": {"type": "object", "properties": {
                "c": {"type": "string", "enum": ["x"], "description": "more"}}}}
        }}),
    };
    let big = tools_for_window(vec![spec.clone()], 200_000, 16_384);
    assert_eq!(big, vec![spec.clone()]);
    let small = tools_for_window(vec![spec], 8192, 16_384);
    assert_eq!(&*small[0].description, "Does a thing.");
    assert_eq!(
        small[0].input_schema,
        json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string"},
            "b": {"type": "array", "items": {"type": "object", "properties": {
                "c": {"type": "string", "enum": ["x"]}}}}
        }})
    );
}

/// The main agent's tools, as an 8,192-token window's requests send them, take well
/// under a third of the window, leaving room for the system prompt under that third.
#[test]
fn the_main_tools_fit_an_8192_window() {
    let registry = Arc::new(Registry::with_builtins());
    let tools = select(&registry, &Selection::main(&[], None));
    let measure = |defs: &[ToolSpec]| estimate_tokens(&serde_json::to_string(defs).unwrap());
    let full = measure(&tools.defs());
    let short = measure(&tools_for_window(tools.defs(), 8192, 16_384));
    assert!(
        short < 8192 / 4,
        "short tools take {short} tokens (full: {full})"
    );
    assert!(short * 2 < full, "short {short}, full {full}");
}
