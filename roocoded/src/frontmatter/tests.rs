//! Tests of the shared splitter and value readers (the agent definitions' tests cover
//! the strict and lenient parse through their loader).

use yaml_serde::Value;

use super::values::{self, Cut};
use super::*;

#[test]
fn the_frontmatter_is_optional_for_split_optional_only() {
    assert_eq!(split_optional("# Title\nbody").unwrap(), None);
    assert!(matches!(
        split("# Title").unwrap_err().error,
        Invalid::NoFrontmatter
    ));
    let s = split_optional("\u{feff}---\r\na: 1\r\n---\r\nbody\r\n")
        .unwrap()
        .unwrap();
    assert_eq!(
        (s.yaml.as_str(), s.first_line, s.body.as_str()),
        ("a: 1", 2, "body\n")
    );
    let unclosed = split_optional("---\na: 1\n").unwrap_err();
    assert_eq!(unclosed.line, Some(1));
    assert!(matches!(unclosed.error, Invalid::Unclosed));
    assert_eq!(normalise("\u{feff}a\r\nb"), "a\nb");
}

#[test]
fn a_hint_that_only_looks_like_a_list_is_read_as_text() {
    let s = split("---\nargument-hint: [pr-number] [priority]\nx: 1\n---\n").unwrap();
    let (map, lenient) = mapping(&s).unwrap();
    assert!(lenient);
    let hint = map
        .get(Value::String("argument-hint".into()))
        .cloned()
        .unwrap();
    assert_eq!(
        values::hint(hint).unwrap().as_deref(),
        Some("[pr-number] [priority]")
    );
    let broken = split("---\ntools: [Read\nx: 1\n---\n").unwrap();
    assert!(matches!(
        mapping(&broken).unwrap_err().error,
        Invalid::Yaml(_)
    ));
}

#[test]
fn value_readers() {
    let yaml = |s: &str| yaml_serde::from_str::<Value>(s).unwrap();
    assert_eq!(
        values::list(yaml("'Read, Bash(git add, git commit)  Grep'"), Cut::Words).unwrap(),
        Some(vec![
            "Read".into(),
            "Bash(git add, git commit)".into(),
            "Grep".into()
        ])
    );
    assert_eq!(
        values::list(yaml("'cli tools, rust,rust'"), Cut::Commas).unwrap(),
        Some(vec!["cli tools".into(), "rust".into()])
    );
    assert_eq!(
        values::list(yaml("[a, 2]"), Cut::Commas).unwrap(),
        Some(vec!["a".into(), "2".into()])
    );
    assert_eq!(values::list(yaml("~"), Cut::Commas).unwrap(), None);
    assert!(
        values::list(yaml("[[a]]"), Cut::Commas)
            .unwrap_err()
            .contains("one item is a list")
    );
    assert_eq!(values::boolean(yaml("'TRUE'"), false), Ok(true));
    assert_eq!(values::boolean(yaml("~"), true), Ok(true));
    assert_eq!(values::integer(yaml("'-3'")), Ok(-3));
    assert!(values::integer(yaml("3000000000")).is_err());
    assert_eq!(values::line(yaml("'  '")), Ok(None));
    assert!(values::line(yaml("\"a\\nb\"")).is_err());
    assert_eq!(
        values::hint(yaml("[file, mode]")).unwrap().as_deref(),
        Some("[file, mode]")
    );
    assert_eq!(
        values::summary("\n\n## Review   the\tcode \nmore", 80),
        "Review the code"
    );
    assert_eq!(values::summary("", 80), "");
    assert_eq!(values::shorten("abcdef", 4), "abc…");
    assert_eq!(values::shorten("ab", 2), "ab");
}
