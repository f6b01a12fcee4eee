//! Tests of the Edit tool on temp files, and of the in-memory edit plan.

use serde_json::json;

use super::{EditFailure, EditPlan, plan_edit};
use crate::tools::test_support::Project;
use crate::tools::write::tests::{invalid, manifest, project};
use crate::tools::{ToolError, ToolOutput};

/// The matcher's message of an edit that found no (or no single) place to change; such
/// an error is recovery's `edit_error`.
fn no_match(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Err(e @ ToolError::NoMatch(_)) => {
            assert_eq!(e.category(), Some(crate::recovery::Category::EditError));
            e.to_string()
        }
        other => panic!("expected no match, got {other:?}"),
    }
}

/// A project with `rel` holding `content`, already read by the agent.
async fn with_read_file(rel: &str, content: &str) -> Project {
    let p = project();
    p.write(rel, content);
    p.ok("Read", json!({"file_path": rel})).await;
    p
}

fn read(p: &Project, rel: &str) -> String {
    std::fs::read_to_string(p.path(rel)).unwrap()
}

#[tokio::test]
async fn replaces_a_unique_occurrence() {
    let p = with_read_file("a.rs", "fn a() {\n    1\n}\nfn b() {\n    2\n}\n").await;
    let out = p
        .run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "    2\n", "new_string": "    20\n    21\n"}),
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput::text("Edited a.rs: replaced 1 occurrence (lines 5-6).").with_diff(
            "--- a/a.rs\n+++ b/a.rs\n@@ -2,5 +2,6 @@\n     1\n }\n fn b() {\n-    2\n+    20\n+    21\n }\n"
        )
    );
    assert_eq!(
        read(&p, "a.rs"),
        "fn a() {\n    1\n}\nfn b() {\n    20\n    21\n}\n"
    );
    let path = p.path("a.rs");
    assert_eq!(manifest(&p)[0]["path"], json!(path));
    assert_eq!(manifest(&p)[0]["existed"], json!(true));
    // The edit is recorded: a second edit needs no new Read.
    p.ok(
        "Edit",
        json!({"file_path": "a.rs", "old_string": "    1\n", "new_string": ""}),
    )
    .await;
    assert_eq!(
        read(&p, "a.rs"),
        "fn a() {\n}\nfn b() {\n    20\n    21\n}\n"
    );
    assert_eq!(manifest(&p).len(), 1, "first checkpoint of the turn kept");
}

#[tokio::test]
async fn several_occurrences_need_context_or_replace_all() {
    let p = with_read_file("a.rs", "x = 1\ny = 2\nx = 1\nx = 1\n").await;
    let err = no_match(
        p.run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "x = 1", "new_string": "x = 9"}),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string occurs 3 times in a.rs (lines 1, 3, 4); give more surrounding context \
         to make it unique, or set replace_all to true to replace every occurrence."
    );
    assert!(manifest(&p).is_empty());
    let out = p
        .ok(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "x = 1", "new_string": "x = 9", "replace_all": true}),
        )
        .await;
    assert_eq!(out, "Edited a.rs: replaced 3 occurrences (lines 1, 3, 4).");
    assert_eq!(read(&p, "a.rs"), "x = 9\ny = 2\nx = 9\nx = 9\n");
}

#[tokio::test]
async fn not_found_hints_at_a_whitespace_variant() {
    let p = with_read_file(
        "a.rs",
        "fn main() {\n\tlet x = 1;\n\tprintln!(\"{x}\");\n}\n",
    )
    .await;
    let err = no_match(
        p.run(
            "Edit",
            json!({
                "file_path": "a.rs",
                "old_string": "    let x = 1;\n    println!(\"{x}\");",
                "new_string": "    let x = 2;\n    println!(\"{x}\");"
            }),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string was not found in a.rs. It must match the file exactly, including \
         whitespace and indentation; Read the file again and copy the text from it.\n\
         A passage that differs from old_string only in whitespace is at lines 2-3:\n\
         \tlet x = 1;\n\tprintln!(\"{x}\");\n\
         If that is the text you mean, use it exactly as old_string."
    );
    let err = no_match(
        p.run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "let y", "new_string": "let z"}),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string was not found in a.rs. It must match the file exactly, including \
         whitespace and indentation; Read the file again and copy the text from it."
    );
    let err = no_match(
        p.run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "     2\tlet x = 1;", "new_string": "x"}),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string was not found in a.rs. It must match the file exactly, including \
         whitespace and indentation; Read the file again and copy the text from it.\n\
         old_string seems to include the line-number prefixes of the Read output (a number \
         and a tab at the start of each line); leave them out."
    );
    assert_eq!(
        read(&p, "a.rs"),
        "fn main() {\n\tlet x = 1;\n\tprintln!(\"{x}\");\n}\n"
    );
}

#[tokio::test]
async fn identical_strings_and_empty_old_string_are_refused() {
    let p = with_read_file("a.rs", "abc\n").await;
    let err = invalid(
        p.run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "abc", "new_string": "abc"}),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string and new_string are identical, so the edit would change nothing. Give \
         the new text in new_string."
    );
    let err = invalid(
        p.run(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "", "new_string": "x"}),
        )
        .await,
    );
    assert_eq!(
        err,
        "old_string is empty. Give the exact existing text to replace; to create a new file, \
         use Write."
    );
}

#[tokio::test]
async fn crlf_files_stay_crlf() {
    let p = with_read_file("w.txt", "a\r\nb\r\nc\r\n").await;
    let out = p
        .ok(
            "Edit",
            json!({"file_path": "w.txt", "old_string": "a\nb", "new_string": "A\nB\nB2"}),
        )
        .await;
    assert_eq!(out, "Edited w.txt: replaced 1 occurrence (lines 1-3).");
    assert_eq!(read(&p, "w.txt"), "A\r\nB\r\nB2\r\nc\r\n");
}

#[tokio::test]
async fn the_final_newline_is_kept() {
    let p = with_read_file("t.txt", "x\nlast\n").await;
    p.ok(
        "Edit",
        json!({"file_path": "t.txt", "old_string": "last\n", "new_string": "final"}),
    )
    .await;
    assert_eq!(read(&p, "t.txt"), "x\nfinal\n");
    let p = with_read_file("n.txt", "x\nlast").await;
    p.ok(
        "Edit",
        json!({"file_path": "n.txt", "old_string": "last", "new_string": "final"}),
    )
    .await;
    assert_eq!(read(&p, "n.txt"), "x\nfinal");
}

#[tokio::test]
async fn a_file_must_be_read_and_unchanged_since() {
    let p = project();
    p.write("a.rs", "one\n");
    let input = json!({"file_path": "a.rs", "old_string": "one", "new_string": "two"});
    let err = invalid(p.run("Edit", input.clone()).await);
    assert_eq!(
        err,
        "a.rs has not been read yet. Read it with the Read tool first, then edit it."
    );
    p.touch("a.rs", 1);
    p.ok("Read", json!({"file_path": "a.rs"})).await;
    p.write("a.rs", "one!\n");
    p.touch("a.rs", 2);
    let err = invalid(p.run("Edit", input.clone()).await);
    assert_eq!(
        err,
        "a.rs has changed on disk since you last read it (the user, a command or another \
         agent modified it). Read it again, then edit it based on its current content."
    );
    assert_eq!(read(&p, "a.rs"), "one!\n");
    assert!(manifest(&p).is_empty());

    let err = p
        .run(
            "Edit",
            json!({"file_path": "nope.rs", "old_string": "a", "new_string": "b"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(
            "File does not exist: nope.rs. Check the path (Glob can find files), or use Write \
             to create a new file."
                .to_string()
        )
    );
}

#[test]
fn plans_report_line_ranges_in_the_new_text() {
    assert_eq!(
        plan_edit("a\nb\nc\nb\n", "b\n", "", true),
        Ok(EditPlan {
            text: "a\nc\n".to_string(),
            ranges: vec![(2, 2), (3, 3)],
        })
    );
    assert_eq!(
        plan_edit("a\nb\nc\nb\n", "b", "x\ny", true),
        Ok(EditPlan {
            text: "a\nx\ny\nc\nx\ny\n".to_string(),
            ranges: vec![(2, 3), (5, 6)],
        })
    );
    // Deleting the whole content leaves an empty file, without a newline.
    assert_eq!(
        plan_edit("only\n", "only\n", "", false),
        Ok(EditPlan {
            text: String::new(),
            ranges: vec![(1, 1)],
        })
    );
    // A mixed file still matches text that contains its real line endings.
    assert_eq!(
        plan_edit("a\r\nb\nc\r\n", "a\r\nb", "z", false).map(|p| p.text),
        Ok("z\nc\r\n".to_string())
    );
    assert_eq!(
        plan_edit("abc", "zzz", "y", false),
        Err(EditFailure::NotFound {
            near: None,
            has_line_numbers: false
        })
    );
    assert_eq!(
        plan_edit("foo(a, b)\n", "foo(a,b)", "y", false),
        Err(EditFailure::NotFound {
            near: Some((1, 1, "foo(a, b)".to_string())),
            has_line_numbers: false
        })
    );
}

#[test]
fn schema_rejects_unknown_fields_and_wrong_types() {
    let registry = crate::tools::Registry::with_builtins();
    let ok = json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": true});
    assert_eq!(registry.validate("Edit", &ok), Ok(()));
    assert_eq!(
        registry.validate(
            "Edit",
            &json!({"file_path": "a", "old_string": "x", "new_string": "y", "all": true})
        ),
        Err("Invalid input for tool Edit:\n\
             - (root): Additional properties are not allowed ('all' was unexpected); the valid parameters are file_path, new_string, old_string, replace_all"
            .to_string())
    );
    assert_eq!(
        registry.validate(
            "Edit",
            &json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"})
        ),
        Err("Invalid input for tool Edit:\n\
             - /replace_all: \"yes\" is not of type \"boolean\""
            .to_string())
    );
}

#[tokio::test]
async fn a_redaction_marker_is_never_written_over_a_real_secret() {
    let key = concat!("AKIA", "Z7XQ3MNB4VKD2LPW");
    let p = with_read_file("config.yaml", &format!("key: {key}\nname: x\n")).await;
    for (old, new) in [
        ("name: x", "name: y\nkey2: [redacted: aws-access-key]"),
        ("key: [redacted: aws-access-key]", "key: other"),
    ] {
        let err = invalid(
            p.run(
                "Edit",
                json!({"file_path": "config.yaml", "old_string": old, "new_string": new}),
            )
            .await,
        );
        assert!(
            err.contains("redaction marker [redacted: aws-access-key]"),
            "{err}"
        );
    }
    assert_eq!(read(&p, "config.yaml"), format!("key: {key}\nname: x\n"));
    // A file that really holds the marker text can still be edited around it.
    let doc = "marker: [redacted: jwt]\nname: x\n";
    let p = with_read_file("doc.md", doc).await;
    p.ok(
        "Edit",
        json!({"file_path": "doc.md", "old_string": "marker: [redacted: jwt]\nname: x", "new_string": "marker: [redacted: jwt]\nname: y"}),
    )
    .await;
    assert_eq!(read(&p, "doc.md"), "marker: [redacted: jwt]\nname: y\n");
}
