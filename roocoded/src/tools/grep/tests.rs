//! Tests of the Grep tool on a small temp project.

use serde_json::{Value, json};

use crate::tools::ToolError;
use crate::tools::test_support::Project;

const MAIN_RS: &str = "\
fn main() {
    println!(\"Hello\");
    helper();
}

fn helper() {
    // TODO: hello again
}
";

fn project() -> Project {
    let p = Project::new();
    p.write("src/main.rs", MAIN_RS);
    p.write("src/lib.py", "def hello():\n    return 'HELLO'\n");
    p.write("README.md", "Say hello\n");
    p.write("data.bin", b"hello\0world\n");
    p
}

async fn grep(p: &Project, input: Value) -> String {
    p.ok("Grep", input).await
}

#[tokio::test]
async fn files_with_matches_is_the_default() {
    let p = project();
    assert_eq!(
        grep(&p, json!({"pattern": "hello"})).await,
        "README.md\nsrc/lib.py\nsrc/main.rs"
    );
    assert_eq!(grep(&p, json!({"pattern": "Hello"})).await, "src/main.rs");
    assert_eq!(
        grep(&p, json!({"pattern": "zebra"})).await,
        "No matches found"
    );
}

#[tokio::test]
async fn content_mode_case_insensitive() {
    let p = project();
    let out = grep(
        &p,
        json!({"pattern": "hello", "-i": true, "output_mode": "content"}),
    )
    .await;
    assert_eq!(
        out,
        "README.md:1:Say hello\n\
         src/lib.py:1:def hello():\n\
         src/lib.py:2:    return 'HELLO'\n\
         src/main.rs:2:    println!(\"Hello\");\n\
         src/main.rs:7:    // TODO: hello again"
    );
    let out = grep(
        &p,
        json!({"pattern": "hello", "output_mode": "content", "-n": false, "path": "README.md"}),
    )
    .await;
    assert_eq!(out, "README.md:Say hello");
}

#[tokio::test]
async fn count_mode() {
    let p = project();
    let out = grep(
        &p,
        json!({"pattern": "hello", "-i": true, "output_mode": "count"}),
    )
    .await;
    assert_eq!(out, "README.md:1\nsrc/lib.py:2\nsrc/main.rs:2");
}

#[tokio::test]
async fn context_lines_and_group_separators() {
    let p = project();
    let out = grep(
        &p,
        json!({"pattern": "helper", "output_mode": "content", "-B": 1, "path": "src/main.rs"}),
    )
    .await;
    assert_eq!(
        out,
        "src/main.rs-2-    println!(\"Hello\");\n\
         src/main.rs:3:    helper();\n\
         --\n\
         src/main.rs-5-\n\
         src/main.rs:6:fn helper() {"
    );
    let out = grep(
        &p,
        json!({"pattern": "hello", "-i": true, "output_mode": "content", "-A": 1}),
    )
    .await;
    assert_eq!(
        out,
        "README.md:1:Say hello\n\
         --\n\
         src/lib.py:1:def hello():\n\
         src/lib.py:2:    return 'HELLO'\n\
         --\n\
         src/main.rs:2:    println!(\"Hello\");\n\
         src/main.rs-3-    helper();\n\
         --\n\
         src/main.rs:7:    // TODO: hello again\n\
         src/main.rs-8-}"
    );
    // -C gives both sides; an explicit -A wins over it.
    let out = grep(
        &p,
        json!({"pattern": "TODO", "output_mode": "content", "-C": 1, "-A": 0}),
    )
    .await;
    assert_eq!(
        out,
        "src/main.rs-6-fn helper() {\nsrc/main.rs:7:    // TODO: hello again"
    );
    // Context is ignored outside content mode.
    let out = grep(&p, json!({"pattern": "TODO", "-C": 3})).await;
    assert_eq!(out, "src/main.rs");
}

#[tokio::test]
async fn type_and_glob_filters() {
    let p = project();
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "type": "py"})).await,
        "src/lib.py"
    );
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "type": "rust"})).await,
        "src/main.rs"
    );
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "glob": "*.{rs,md}"})).await,
        "README.md\nsrc/main.rs"
    );
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "glob": "src/*.py"})).await,
        "src/lib.py"
    );
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "glob": "*.zig"})).await,
        "No matches found"
    );
    let err = p
        .run("Grep", json!({"pattern": "x", "type": "klingon"}))
        .await
        .unwrap_err();
    let ToolError::InvalidInput(msg) = err else {
        panic!("{err:?}")
    };
    assert!(msg.contains("klingon"), "{msg}");
}

#[tokio::test]
async fn multiline_patterns_span_lines() {
    let p = project();
    let out = grep(
        &p,
        json!({"pattern": "fn helper\\(\\) \\{.*?\\}", "multiline": true, "output_mode": "content"}),
    )
    .await;
    assert_eq!(
        out,
        "src/main.rs:6:fn helper() {\nsrc/main.rs:7:    // TODO: hello again\nsrc/main.rs:8:}"
    );
    let out = grep(
        &p,
        json!({"pattern": "main.*helper", "multiline": true, "output_mode": "count"}),
    )
    .await;
    assert_eq!(out, "src/main.rs:6"); // greedy: from `main` to the last `helper`
    // Without multiline `.` stops at line ends, and a literal \n is refused with a hint.
    assert_eq!(
        grep(&p, json!({"pattern": "main.*helper"})).await,
        "No matches found"
    );
    let err = p
        .run("Grep", json!({"pattern": "\\{\\n"}))
        .await
        .unwrap_err();
    let ToolError::InvalidInput(msg) = err else {
        panic!("{err:?}")
    };
    assert!(
        msg.ends_with("Set multiline: true to match across lines."),
        "{msg}"
    );
}

#[tokio::test]
async fn invalid_regex_is_invalid_input() {
    let p = project();
    let err = p
        .run("Grep", json!({"pattern": "(unclosed"}))
        .await
        .unwrap_err();
    let ToolError::InvalidInput(msg) = err else {
        panic!("{err:?}")
    };
    assert!(msg.starts_with("Invalid regex \"(unclosed\": "), "{msg}");
    assert!(msg.contains("unclosed group"), "{msg}");
}

#[tokio::test]
async fn head_limit_keeps_the_first_entries() {
    let p = project();
    let out = grep(
        &p,
        json!({"pattern": "hello", "-i": true, "output_mode": "content", "head_limit": 2}),
    )
    .await;
    assert_eq!(
        out,
        "README.md:1:Say hello\nsrc/lib.py:1:def hello():\n(head_limit 2 reached; more results not shown.)"
    );
    let out = grep(&p, json!({"pattern": "hello", "head_limit": 3})).await;
    assert_eq!(out, "README.md\nsrc/lib.py\nsrc/main.rs");
    let out = grep(&p, json!({"pattern": "hello", "head_limit": 0})).await;
    assert_eq!(out, "README.md\nsrc/lib.py\nsrc/main.rs");
}

#[tokio::test]
async fn binary_and_ignored_files_are_skipped() {
    let p = project();
    assert_eq!(
        grep(&p, json!({"pattern": "hello", "path": "data.bin"})).await,
        "No matches found (binary file skipped: Grep only searches text)"
    );
    std::fs::create_dir(p.path(".git")).unwrap();
    p.write(".gitignore", "gen/\n");
    p.write(".rooignore", "private.txt\n");
    p.write("gen/out.rs", "hello\n");
    p.write("private.txt", "hello\n");
    p.write(".env", "hello\n");
    assert_eq!(
        grep(&p, json!({"pattern": "hello"})).await,
        "README.md\nsrc/lib.py\nsrc/main.rs"
    );
}

#[tokio::test]
async fn long_output_is_capped_with_a_note() {
    let p = Project::new();
    let line = format!("match {}\n", "z".repeat(200));
    p.write("big.txt", line.repeat(400));
    let out = grep(&p, json!({"pattern": "match", "output_mode": "content"})).await;
    assert!(out.len() <= crate::tools::MAX_OUTPUT_CHARS);
    assert!(
        out.ends_with(
            "\n(Output capped at 30000 characters; more results not shown. \
             Narrow the search with path, glob, type or head_limit.)"
        ),
        "{out}"
    );
    // Very long lines are cut.
    p.write("wide.txt", format!("needle {}\n", "w".repeat(1000)));
    let out = grep(&p, json!({"pattern": "needle", "output_mode": "content"})).await;
    assert_eq!(
        out,
        format!(
            "wide.txt:1:needle {}… [line truncated, 1007 chars total]",
            "w".repeat(493)
        )
    );
}

#[tokio::test]
async fn missing_and_outside_paths_fail() {
    let p = project();
    assert_eq!(
        p.run("Grep", json!({"pattern": "x", "path": "nope"})).await,
        Err(ToolError::Failed(format!(
            "Path does not exist: {}",
            p.path("nope").display()
        )))
    );
    assert!(matches!(
        p.run("Grep", json!({"pattern": "root", "path": "/etc"}))
            .await,
        Err(ToolError::Failed(_))
    ));
}

#[tokio::test]
async fn files_that_hold_credentials_are_left_out_with_a_note() {
    let p = project();
    p.write(".env", "HELLO_TOKEN=canary\n");
    p.write("deploy/server.pem", "hello pem\n");
    let out = grep(&p, json!({"pattern": "hello", "glob": "**/.env*"})).await;
    assert_eq!(
        out,
        "No matches found\n(1 file that usually holds credentials was left out of this \
         search: .env. To look inside one, Read it; RooCode asks the user first.)"
    );
    let out = grep(&p, json!({"pattern": "hello", "-i": true})).await;
    assert!(
        out.starts_with("README.md\nsrc/lib.py\nsrc/main.rs\n("),
        "{out}"
    );
    assert!(
        out.contains("deploy/server.pem") && !out.contains("canary"),
        "{out}"
    );
    // Pointing at the file itself does not search it either.
    let out = grep(
        &p,
        json!({"pattern": "canary", "path": ".env", "output_mode": "content"}),
    )
    .await;
    assert!(out.starts_with("No matches found\n(1 file"), "{out}");
}

#[tokio::test]
async fn a_hard_link_to_a_credentials_file_is_left_out_too() {
    let p = project();
    let env = p.write(".env", "HELLO_TOKEN=canary\n");
    std::fs::hard_link(&env, p.path("notes.txt")).unwrap();
    let out = grep(&p, json!({"pattern": "canary", "output_mode": "content"})).await;
    assert!(
        out.starts_with("No matches found\n(1 file that usually holds credentials was left out of this search: notes.txt."),
        "{out}"
    );
}

#[tokio::test]
async fn hard_linked_files_are_left_out_of_directory_searches_with_a_note() {
    let p = project();
    let outside = p.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "hello from outside\n").unwrap();
    std::fs::hard_link(outside.join("secret"), p.root.join("linked.txt")).unwrap();
    let out = grep(&p, json!({"pattern": "outside", "output_mode": "content"})).await;
    assert!(!out.contains("hello from outside"), "{out}");
    assert!(
        out.contains("1 file with more than one hard link left out"),
        "{out}"
    );
    // Named directly, the file went through the gate like a Read: it is searched.
    let out = grep(&p, json!({"pattern": "outside", "path": "linked.txt"})).await;
    assert!(out.contains("linked.txt"), "{out}");
}

#[tokio::test]
async fn control_characters_in_names_are_shown_escaped() {
    let p = project();
    p.write("two\nlines.txt", "hello\n");
    let out = grep(&p, json!({"pattern": "hello", "glob": "two*"})).await;
    assert_eq!(out, "two\\nlines.txt");
}
