//! Text edits of `.mcp.json`: what is written, and that nothing else moves.

use std::collections::BTreeMap;

use super::*;
use crate::mcp::entry;

fn files() -> Fields {
    let env = BTreeMap::from([("TOKEN".to_string(), "${TOKEN}".to_string())]);
    entry::stdio("npx", &["-y".into(), "server".into()], &env)
}

#[test]
fn a_new_file_is_claude_code_shaped_with_two_space_indentation() {
    let new = add("", "files", &files()).unwrap();
    assert_eq!(
        new,
        r#"{
  "mcpServers": {
    "files": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server"],
      "env": {"TOKEN": "${TOKEN}"}
    }
  }
}
"#
    );
}

#[test]
fn other_keys_keep_their_order_and_spelling() {
    let text = "{\n    \"zeta\": 1,\n    \"mcpServers\": {\n        \"a\": {\"command\": \"a\"}\n    },\n    \"alpha\": [1,2]\n}";
    let new = add(
        text,
        "docs",
        &entry::http("https://h/mcp", &BTreeMap::new()),
    )
    .unwrap();
    assert_eq!(
        new,
        "{\n    \"zeta\": 1,\n    \"mcpServers\": {\n        \"a\": {\"command\": \"a\"},\n        \"docs\": {\n            \"type\": \"http\",\n            \"url\": \"https://h/mcp\"\n        }\n    },\n    \"alpha\": [1,2]\n}"
    );
    assert_eq!(remove(&new, "docs").unwrap(), text);
}

#[test]
fn a_file_without_mcp_servers_gets_the_key_last() {
    let text = "{\r\n\t\"other\": {\"x\": \"}\"}\r\n}\r\n";
    let new = add(text, "a", &entry::switch(false)).unwrap();
    assert_eq!(
        new,
        "{\r\n\t\"other\": {\"x\": \"}\"},\r\n\t\"mcpServers\": {\r\n\t\t\"a\": {\r\n\t\t\t\"enabled\": false\r\n\t\t}\r\n\t}\r\n}\r\n"
    );
    let back = remove(&new, "a").unwrap();
    assert_eq!(
        back,
        "{\r\n\t\"other\": {\"x\": \"}\"},\r\n\t\"mcpServers\": {}\r\n}\r\n"
    );
}

#[test]
fn one_line_objects_stay_on_one_line() {
    let text = r#"{"mcpServers": {"a": {"command": "a"}}}"#;
    let new = add(text, "b", &entry::switch(true)).unwrap();
    assert_eq!(
        new,
        r#"{"mcpServers": {"a": {"command": "a"}, "b": {"enabled": true}}}"#
    );
    assert_eq!(remove(&new, "b").unwrap(), text);
    assert_eq!(
        remove(&new, "a").unwrap(),
        r#"{"mcpServers": {"b": {"enabled": true}}}"#
    );
    assert_eq!(remove(text, "a").unwrap(), r#"{"mcpServers": {}}"#);
}

#[test]
fn removing_the_middle_one_takes_its_comma() {
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"ab\": {\"command\": \"ab, {x}\"},\n    \"abc\": {\"command\": \"abc\"}\n  }\n}\n";
    assert_eq!(
        remove(text, "ab").unwrap(),
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"abc\": {\"command\": \"abc\"}\n  }\n}\n"
    );
    assert_eq!(
        remove(text, "abc").unwrap(),
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"ab\": {\"command\": \"ab, {x}\"}\n  }\n}\n"
    );
    let err = remove(text, "b").unwrap_err();
    assert!(err.contains("no server `b`"), "{err}");
}

#[test]
fn strings_with_quotes_braces_and_escapes_are_skipped_correctly() {
    let text = "{\"mcpServers\": {\"a\\\"}\": {\"command\": \"x\\\\\", \"args\": [\"]\", \"{\"]}}, \"k\": \"\\u007d\"}";
    let new = add(
        text,
        "b",
        &entry::stdio("say \"hi\" # ${X}: y", &[], &BTreeMap::new()),
    )
    .unwrap();
    let doc: Value = serde_json::from_str(&new).unwrap();
    assert_eq!(doc["mcpServers"]["b"]["command"], "say \"hi\" # ${X}: y");
    assert_eq!(doc["mcpServers"]["a\"}"]["args"][1], "{");
    assert_eq!(remove(&new, "b").unwrap(), text);
}

#[test]
fn disable_and_enable_an_entry() {
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\"\n    }\n  }\n}\n";
    let off = set_enabled(text, "a", false).unwrap();
    assert_eq!(
        off,
        "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"a\",\n      \"enabled\": false\n    }\n  }\n}\n"
    );
    assert_eq!(entries(&off).unwrap()["a"].enabled, Some(false));
    assert_eq!(set_enabled(&off, "a", true).unwrap(), text);
    let on = off.replace("false", "true");
    assert_eq!(set_enabled(&on, "a", false).unwrap(), off);
}

#[test]
fn broken_or_odd_files_are_refused() {
    let err = add("{\"mcpServers\": {,}}", "a", &files()).unwrap_err();
    assert!(
        err.contains("not valid JSON") && err.contains("line 1"),
        "{err}"
    );
    let err = add("[1]", "a", &files()).unwrap_err();
    assert!(err.contains("top level"), "{err}");
    let err = add("{\"mcpServers\": []}", "a", &files()).unwrap_err();
    assert!(err.contains("not an object"), "{err}");
    let err = add("{\"mcpServers\": {\"a\": {}}}", "a", &files()).unwrap_err();
    assert!(err.contains("already has a server `a`"), "{err}");
    let twice = "{\"mcpServers\": {\"a\": {}, \"a\": {}}}";
    let err = remove(twice, "a").unwrap_err();
    assert!(err.contains("twice"), "{err}");
}

#[test]
fn entries_say_which_are_switches() {
    let text =
        r#"{"mcpServers": {"a": {"enabled": false}, "b": {"command": "b", "enabled": false}}}"#;
    let held = entries(text).unwrap();
    assert!(held["a"].switch_only);
    assert!(!held["b"].switch_only && held["b"].enabled == Some(false));
    assert!(entries("{}").unwrap().is_empty());
}
