//! Table-driven tests of the condition grammar: what parses, where errors point, and
//! what evaluates to true.

use std::collections::BTreeMap;

use super::Condition;

fn fields() -> BTreeMap<String, String> {
    [
        ("event", "post_tool_use"),
        ("tool", "Write"),
        ("file_path", "/p/src/main.rs"),
        ("tool_input.file_path", "/p/src/main.rs"),
        ("command", ""),
        ("flag", "false"),
        ("quote", "say \"hi\""),
        ("back", "a\\b"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

#[test]
fn evaluates() {
    let table: &[(&str, bool)] = &[
        (r#"tool == "Write""#, true),
        (r#"tool == "Edit""#, false),
        (r#"tool != "Edit""#, true),
        (r#""Write" == tool"#, true),
        (r#"tool == tool"#, true),
        (r#"file_path =~ "\.rs$""#, true),
        (r#"file_path =~ "\\.rs$""#, true),
        (r#"file_path =~ "\.py$""#, false),
        (r#"file_path =~ "src""#, true),
        (r#"tool_input.file_path =~ "^/p/""#, true),
        (r#"tool == "Write" && file_path =~ "\.rs$""#, true),
        (r#"tool == "Edit" && file_path =~ "\.rs$""#, false),
        (r#"tool == "Edit" || file_path =~ "\.rs$""#, true),
        // && binds tighter than ||
        (
            r#"tool == "Write" || tool == "Edit" && file_path == "x""#,
            true,
        ),
        (
            r#"(tool == "Write" || tool == "Edit") && file_path == "x""#,
            false,
        ),
        (r#"!(tool == "Write")"#, false),
        (r#"!!(tool == "Write")"#, true),
        (r#"!(tool == "Edit") && tool"#, true),
        // bare fields: present, non-empty and not false
        ("tool", true),
        ("command", false),
        ("flag", false),
        ("missing", false),
        ("!missing", true),
        ("!tool", false),
        // a missing field is the empty string
        (r#"missing == """#, true),
        (r#"missing != """#, false),
        (r#"command == missing"#, true),
        (r#"missing =~ "^$""#, true),
        // escapes
        (r#"quote == "say \"hi\"""#, true),
        (r#"back == "a\\b""#, true),
        (r#"back =~ "a\\\\b""#, true),
        // whitespace is free
        ("  tool==\"Write\"&&(file_path=~\"rs\")  ", true),
        ("a.b_c.d9 || tool", true),
    ];
    let f = fields();
    for (source, expected) in table {
        let c = Condition::parse(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(c.eval(&f), *expected, "{source}");
        assert_eq!(c.source(), *source);
    }
}

#[test]
fn errors_name_the_column() {
    let table: &[(&str, usize, &str)] = &[
        ("", 1, "empty"),
        ("   ", 1, "empty"),
        (r#"tool = "Write""#, 6, "`=` alone"),
        (r#"tool == "Write" & x"#, 17, "`&` alone"),
        (r#"tool == "Write" | x"#, 17, "`|` alone"),
        (r#"tool == "Write"#, 9, "not closed"),
        (r#"tool == Write"#, 9, "lower case"),
        (r#"filePath == "x""#, 5, "lower case"),
        (r#"tool == "a" == "b""#, 13, "do not chain"),
        (r#"!tool == "Bash""#, 7, "binds tighter"),
        (r#"(tool) == "Bash""#, 8, "condition, not a field"),
        (r#"tool == !x"#, 6, "right side of `==` is a condition"),
        (r#""Write""#, 1, "string alone"),
        (r#"tool && "x""#, 9, "string alone"),
        (r#"tool =~ other"#, 9, "is the regex"),
        (r#"file_path =~ "(""#, 14, "invalid regex"),
        (r#"tool &&"#, 8, "ends too early"),
        (r#"(tool"#, 6, "expected `)`"),
        (r#"tool)"#, 5, "unexpected `)`"),
        (r#"tool tool"#, 6, "unexpected field `tool`"),
        (r#"tool == "x" #"#, 13, "unexpected character `#`"),
        (r#"é == "x""#, 1, "unexpected character `é`"),
        (r#""é" == x &&"#, 12, "ends too early"),
        (r#"&& tool"#, 1, "unexpected `&&`"),
    ];
    for (source, column, needle) in table {
        let e = Condition::parse(source).expect_err(source);
        assert_eq!(e.column, *column, "{source}: {e}");
        assert!(e.message.contains(needle), "{source}: {e}");
        assert!(e.to_string().starts_with(&format!("column {column}: ")));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let source = format!("{}tool{}", "(".repeat(500), ")".repeat(500));
    let e = Condition::parse(&source).unwrap_err();
    assert!(e.message.contains("nests too deeply"), "{e}");
    let source = format!("{}tool", "!".repeat(500));
    assert!(Condition::parse(&source).is_err());
    let ok = format!("{}tool{}", "(".repeat(10), ")".repeat(10));
    assert!(Condition::parse(&ok).unwrap().eval(&fields()));
}
