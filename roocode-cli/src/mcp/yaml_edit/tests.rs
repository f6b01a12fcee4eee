//! Text edits of `mcp_servers:`: what is written, and that nothing else moves.

use std::collections::BTreeMap;

use super::*;
use crate::mcp::entry;

fn files() -> Fields {
    let env = BTreeMap::from([("TOKEN".to_string(), "${TOKEN}".to_string())]);
    entry::stdio("npx", &["-y".into(), "server".into()], &env)
}

const FILES_BLOCK: &str = "  files:\n    type: \"stdio\"\n    command: \"npx\"\n    args: [\"-y\", \"server\"]\n    env: {\"TOKEN\": \"${TOKEN}\"}\n";

#[test]
fn add_appends_the_section_to_a_file_without_one_and_keeps_comments() {
    let text =
        "# my settings\nmodel: anthropic/x  # the best\n\npermissions:\n  allow: [\"Read\"]\n";
    let new = add(text, "files", &files()).unwrap();
    assert_eq!(new, format!("{text}mcp_servers:\n{FILES_BLOCK}"));
    assert_eq!(
        add("", "files", &files()).unwrap(),
        format!("mcp_servers:\n{FILES_BLOCK}")
    );
    let new = add("# nothing yet\n", "files", &files()).unwrap();
    assert_eq!(new, format!("# nothing yet\nmcp_servers:\n{FILES_BLOCK}"));
}

#[test]
fn add_goes_after_the_last_entry_at_its_indentation() {
    let text = "mcp_servers:\n    # the notes\n    notes:\n        command: notes   # local build\n\n# trailing comment of the next key\nmodel: x\n";
    let new = add(
        text,
        "docs",
        &entry::http("https://h/mcp", &BTreeMap::new()),
    )
    .unwrap();
    assert_eq!(
        new,
        "mcp_servers:\n    # the notes\n    notes:\n        command: notes   # local build\n    docs:\n        type: \"http\"\n        url: \"https://h/mcp\"\n\n# trailing comment of the next key\nmodel: x\n"
    );
    assert_eq!(entries(&new).unwrap().len(), 2);
}

#[test]
fn add_to_an_empty_section_and_to_an_empty_flow_mapping() {
    let new = add("mcp_servers:\nmodel: x\n", "files", &files()).unwrap();
    assert_eq!(new, format!("mcp_servers:\n{FILES_BLOCK}model: x\n"));
    let new = add("mcp_servers: {}  # none yet\nmodel: x\n", "files", &files()).unwrap();
    assert_eq!(
        new,
        format!("mcp_servers: # none yet\n{FILES_BLOCK}model: x\n")
    );
    let new = add("mcp_servers: ~\n", "files", &files()).unwrap();
    assert_eq!(new, format!("mcp_servers:\n{FILES_BLOCK}"));
}

#[test]
fn crlf_and_a_missing_last_newline_are_kept() {
    let text = "model: x\r\nmcp_servers:\r\n  a:\r\n    command: a";
    let new = add(text, "b", &entry::switch(false)).unwrap();
    assert_eq!(
        new,
        "model: x\r\nmcp_servers:\r\n  a:\r\n    command: a\r\n  b:\r\n    enabled: false"
    );
    assert_eq!(remove(&new, "b").unwrap(), text);
    let new = add("model: x", "b", &entry::switch(true)).unwrap();
    assert_eq!(new, "model: x\nmcp_servers:\n  b:\n    enabled: true\n");
}

#[test]
fn values_with_special_characters_round_trip() {
    let tricky = [
        "a: b",
        "# not a comment",
        "say \"hi\"",
        "${X}",
        "${X:-d}",
        "back\\slash",
        "'single'",
        "- dash",
        "tab\tnew\nline",
        "ünï",
        "",
    ];
    let args: Vec<String> = tricky.iter().map(|s| s.to_string()).collect();
    let env: BTreeMap<String, String> = tricky
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("V{i}"), s.to_string()))
        .collect();
    let new = add("", "files", &entry::stdio("a: b # c", &args, &env)).unwrap();
    let doc: Value = yaml_serde::from_str(&new).unwrap();
    let server = &doc["mcp_servers"]["files"];
    assert_eq!(server["command"].as_str(), Some("a: b # c"));
    for (i, s) in tricky.iter().enumerate() {
        assert_eq!(server["args"][i].as_str(), Some(*s));
        assert_eq!(server["env"][format!("V{i}").as_str()].as_str(), Some(*s));
    }
}

#[test]
fn odd_names_are_quoted_keys() {
    for name in ["null", "true", "123", "-x", "No", "1e3", "_ok"] {
        let new = add("", name, &entry::switch(false)).unwrap();
        let held = entries(&new).unwrap();
        assert_eq!(held.keys().collect::<Vec<_>>(), [name], "{new}");
        assert_eq!(remove(&new, name).unwrap(), "mcp_servers:\n", "{name}");
    }
    assert!(
        add("", "_ok", &entry::switch(false))
            .unwrap()
            .contains("\n  _ok:\n")
    );
}

#[test]
fn remove_takes_the_entry_and_its_deeper_lines_only() {
    let text = "model: x\nmcp_servers:\n  files:\n    command: npx\n\n    # its args\n    args:\n      - -y\n  # the next one\n  files2:\n    command: other\n  \"f\": {command: f}\nlast: 1\n";
    assert_eq!(
        remove(text, "files").unwrap(),
        "model: x\nmcp_servers:\n  # the next one\n  files2:\n    command: other\n  \"f\": {command: f}\nlast: 1\n"
    );
    assert_eq!(
        remove(text, "files2").unwrap(),
        "model: x\nmcp_servers:\n  files:\n    command: npx\n\n    # its args\n    args:\n      - -y\n  # the next one\n  \"f\": {command: f}\nlast: 1\n"
    );
    let without_f = remove(text, "f").unwrap();
    assert!(
        without_f.ends_with("    command: other\nlast: 1\n"),
        "{without_f}"
    );
    let err = remove(text, "file").unwrap_err();
    assert!(err.contains("no server `file`"), "{err}");
}

#[test]
fn round_trip_leaves_the_file_byte_identical() {
    let text = "# top\nmcp_servers:   # servers\n   a:\n      command: a\n\nmodel: x # m\n";
    let added = add(text, "b", &files()).unwrap();
    assert!(added.contains("   b:\n      type: \"stdio\"\n"), "{added}");
    assert_eq!(remove(&added, "b").unwrap(), text);
}

#[test]
fn flow_style_and_broken_files_are_refused() {
    let err = add("mcp_servers: {a: {command: a}}\n", "b", &files()).unwrap_err();
    assert!(err.contains("flow style"), "{err}");
    let err = remove("mcp_servers: {a: {command: a}}\n", "a").unwrap_err();
    assert!(err.contains("flow style"), "{err}");
    let err = add("model: [unclosed\n", "b", &files()).unwrap_err();
    assert!(err.contains("not valid YAML"), "{err}");
    let err = add("- a\n- b\n", "b", &files()).unwrap_err();
    assert!(err.contains("top level"), "{err}");
    let err = add("mcp_servers: 3\n", "b", &files()).unwrap_err();
    assert!(err.contains("not a mapping of servers"), "{err}");
    let err = add("mcp_servers: &s\n  a: {command: a}\n", "b", &files()).unwrap_err();
    assert!(err.contains("flow style"), "{err}");
    let err = add("mcp_servers:\n  a: {command: a}\n", "a", &files()).unwrap_err();
    assert!(err.contains("already has a server `a`"), "{err}");
}

#[test]
fn what_the_text_scan_cannot_see_is_caught_by_the_check() {
    // An alias elsewhere of an anchor in the entry: removing it would break the file.
    let text = "mcp_servers:\n  a: &srv\n    command: a\nother: *srv\n";
    let err = remove(text, "a").unwrap_err();
    assert!(err.contains("edit it by hand"), "{err}");
    // After an explicit document end, an appended section would be a second document.
    let err = add("model: x\n...\n", "b", &files()).unwrap_err();
    assert!(err.contains("edit it by hand"), "{err}");
    // A quoted key is still the key.
    let text = "\"mcp_servers\":\n  a:\n    command: a\n";
    assert_eq!(remove(text, "a").unwrap(), "\"mcp_servers\":\n");
}

#[test]
fn disable_and_enable_a_block_entry() {
    let text = "mcp_servers:\n  files:\n    command: npx  # keep me\n  next:\n    command: n\n";
    let off = set_enabled(text, "files", false).unwrap();
    assert_eq!(
        off,
        "mcp_servers:\n  files:\n    command: npx  # keep me\n    enabled: false\n  next:\n    command: n\n"
    );
    assert_eq!(entries(&off).unwrap()["files"].enabled, Some(false));
    assert_eq!(set_enabled(&off, "files", false).unwrap(), off);
    assert_eq!(set_enabled(&off, "files", true).unwrap(), text);
    let on = "mcp_servers:\n  files:\n    enabled: true\n    command: npx\n";
    assert_eq!(
        set_enabled(on, "files", false).unwrap(),
        "mcp_servers:\n  files:\n    enabled: false\n    command: npx\n"
    );
}

#[test]
fn a_one_line_entry_is_rewritten_as_a_block_in_its_key_order() {
    let text = "mcp_servers:\n  docs: {url: 'http://h/mcp', type: http}  # remote\nmodel: x";
    let off = set_enabled(text, "docs", false).unwrap();
    assert_eq!(
        off,
        "mcp_servers:\n  docs:\n    url: \"http://h/mcp\"\n    type: \"http\"\n    enabled: false\nmodel: x"
    );
    let on = set_enabled(&off, "docs", true).unwrap();
    assert!(!on.contains("enabled"), "{on}");
}

#[test]
fn entries_say_which_are_switches() {
    let text = "mcp_servers:\n  a: {enabled: false}\n  b:\n    command: b\n    enabled: false\n  c:\n    command: c\n";
    let held = entries(text).unwrap();
    assert_eq!(
        held["a"],
        Held {
            switch_only: true,
            enabled: Some(false)
        }
    );
    assert!(!held["b"].switch_only && held["b"].enabled == Some(false));
    assert_eq!(held["c"].enabled, None);
    assert!(entries("model: x\n").unwrap().is_empty());
    assert!(entries("mcp_servers: [a]\n").is_err());
}
