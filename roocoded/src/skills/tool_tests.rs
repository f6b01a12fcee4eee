//! Tests of `tool.json`: validation with messages saying what to fix, and argument
//! vectors built without a shell.

use std::time::Duration;

use serde_json::{Value, json};

use super::tool::*;

fn tool(command: &[&str]) -> SkillTool {
    let file = json!({"tools": [{
        "name": "grep-it",
        "description": "Search",
        "input_schema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "limit": {"type": "integer"},
                "mode": {"type": "string", "default": "fast"},
                "flags": {"type": "array"}
            },
            "required": ["pattern"]
        },
        "command": command,
    }]});
    parse(&file.to_string()).unwrap().remove(0)
}

#[test]
fn argv_substitutes_per_element_without_a_shell() {
    let t = tool(&[
        "rg",
        "-e",
        "{{pattern}}",
        "--max={{limit}}",
        "{{path}}",
        "--mode={{mode}}",
    ]);
    let argv = t
        .argv(&json!({"pattern": "a b; rm -rf / $(x) {{path}}", "limit": 3}))
        .unwrap();
    assert_eq!(
        argv,
        [
            "rg",
            "-e",
            "a b; rm -rf / $(x) {{path}}",
            "--max=3",
            "--mode=fast"
        ]
    );
    let argv = t
        .argv(&json!({"pattern": "x", "path": "src", "flags": [1, "a"]}))
        .unwrap();
    assert_eq!(argv, ["rg", "-e", "x", "src", "--mode=fast"]);
    let t = tool(&["rg", "{{flags}}", "{{pattern}}"]);
    assert_eq!(
        t.argv(&json!({"pattern": "x", "flags": [1, "a"]})).unwrap(),
        ["rg", "[1,\"a\"]", "x"]
    );
}

#[test]
fn argv_errors() {
    let t = tool(&["rg", "{{pattern}}"]);
    assert_eq!(
        t.argv(&json!({})).unwrap_err(),
        "`pattern` is required by the tool `grep-it`"
    );
    assert_eq!(
        t.argv(&json!({"pattern": null})).unwrap_err(),
        "`pattern` is required by the tool `grep-it`"
    );
    assert!(
        t.argv(&json!([1]))
            .unwrap_err()
            .contains("must be an object")
    );
    assert!(
        t.argv(&json!({"pattern": "a\0b"}))
            .unwrap_err()
            .contains("NUL")
    );
}

#[test]
fn invalid_files_say_what_to_fix() {
    let schema = json!({"type": "object", "properties": {"p": {}}});
    let one = |tool: Value| json!({"tools": [tool]}).to_string();
    let cases: Vec<(String, &str)> = vec![
        ("{\"tools\": [".to_string(), "not valid JSON"),
        ("{\"tool\": []}".to_string(), "unknown field `tool`"),
        (
            one(
                json!({"name": "1x", "description": "d", "input_schema": schema, "command": ["a"]}),
            ),
            "the name must be",
        ),
        (
            one(json!({"name": "x", "description": " ", "input_schema": schema, "command": ["a"]})),
            "`description` is empty",
        ),
        (
            one(json!({"name": "x", "description": "d", "input_schema": schema, "command": []})),
            "`command` is empty",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["{{p}}"]}),
            ),
            "the program",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["a", "{{q}}"]}),
            ),
            "no property for",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["a", "{{p"]}),
            ),
            "never closes",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["a", "{{ }}"]}),
            ),
            "empty",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": {"type": "string"}, "command": ["a"]}),
            ),
            "\"type\": \"object\"",
        ),
        (
            one(json!({"name": "x", "description": "d", "input_schema": [], "command": ["a"]})),
            "JSON Schema object",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": {"required": ["z"]}, "command": ["a"]}),
            ),
            "not a property",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["a"], "timeout_s": 0}),
            ),
            "above 0",
        ),
        (
            one(
                json!({"name": "x", "description": "d", "input_schema": schema, "command": ["a"], "shell": true}),
            ),
            "unknown field `shell`",
        ),
    ];
    for (text, expected) in cases {
        let (_, error) = parse(&text).unwrap_err();
        assert!(error.to_string().contains(expected), "{text}: {error}");
    }
    let twice = json!({"tools": [
        {"name": "x", "description": "d", "input_schema": schema, "command": ["a"]},
        {"name": "x", "description": "d", "input_schema": schema, "command": ["b"]},
    ]});
    assert_eq!(
        parse(&twice.to_string()).unwrap_err().1,
        ToolFileError::Twice("x".into())
    );
}

#[test]
fn a_json_error_has_its_line_and_the_problem_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    std::fs::write(&path, "{\n  \"tools\": [\n    {\"name\": }\n]}").unwrap();
    let problem = load(&path).unwrap_err();
    assert_eq!(problem.file, path);
    assert_eq!(problem.line, Some(3));
    let ok = json!({"tools": [{"name": "x", "description": "d", "input_schema": {}, "command": ["a"], "timeout_s": 1.5}]});
    std::fs::write(&path, ok.to_string()).unwrap();
    assert_eq!(
        load(&path).unwrap()[0].timeout,
        Some(Duration::from_millis(1500))
    );
}
