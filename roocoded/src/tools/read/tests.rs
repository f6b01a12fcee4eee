//! Tests of the Read tool on temp files.

use serde_json::json;

use crate::tools::test_support::Project;
use crate::tools::{ReadStatus, ToolError};

#[tokio::test]
async fn reads_whole_file_numbered() {
    let p = Project::new();
    p.write("a.txt", "alpha\nbeta\r\n\ngamma");
    let out = p.ok("Read", json!({"file_path": "a.txt"})).await;
    assert_eq!(out, "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma");
    let abs = p.path("a.txt");
    assert_eq!(p.ctx.files.status(&abs), ReadStatus::Unchanged);
    // Absolute paths work the same.
    let again = p
        .ok("Read", json!({"file_path": abs.to_str().unwrap()}))
        .await;
    assert_eq!(again, out);
}

#[tokio::test]
async fn offset_and_limit_page_through() {
    let p = Project::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    p.write("ten.txt", text);
    let out = p
        .ok(
            "Read",
            json!({"file_path": "ten.txt", "offset": 3, "limit": 2}),
        )
        .await;
    assert_eq!(
        out,
        "     3\tline 3\n     4\tline 4\n\n(Showing lines 3-4 of 10. Use offset=5 to read more.)"
    );
    let tail = p
        .ok("Read", json!({"file_path": "ten.txt", "offset": 9}))
        .await;
    assert_eq!(tail, "     9\tline 9\n    10\tline 10");
    let past = p
        .ok("Read", json!({"file_path": "ten.txt", "offset": 11}))
        .await;
    assert_eq!(
        past,
        format!(
            "(The file {} has 10 lines; offset 11 is past the end.)",
            p.path("ten.txt").display()
        )
    );
}

#[tokio::test]
async fn default_limit_is_2000_lines() {
    let p = Project::new();
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    p.write("long.txt", text);
    let out = p.ok("Read", json!({"file_path": "long.txt"})).await;
    assert!(out.starts_with("     1\t1\n"));
    assert!(
        out.contains(
            "  2000\t2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to read more.)"
        )
    );
    assert!(!out.contains("2001\t"));
}

#[tokio::test]
async fn long_lines_are_truncated_and_output_is_capped() {
    let p = Project::new();
    let long = "x".repeat(2500);
    p.write("wide.txt", format!("{long}\nshort\n"));
    let out = p.ok("Read", json!({"file_path": "wide.txt"})).await;
    assert_eq!(
        out,
        format!(
            "     1\t{}… [line truncated, 2500 chars total]\n     2\tshort",
            "x".repeat(2000)
        )
    );

    let text: String = (1..=100)
        .map(|i| format!("{i:04}{}\n", "y".repeat(996)))
        .collect();
    p.write("big.txt", text);
    let out = p.ok("Read", json!({"file_path": "big.txt"})).await;
    assert!(out.len() <= crate::tools::MAX_OUTPUT_CHARS, "{}", out.len());
    assert!(
        out.ends_with(
            "\n\n(Showing lines 1-29 of 100 (output capped at 30000 characters). Use offset=30 to read more.)"
        ),
        "{}",
        &out[out.len() - 200..]
    );
}

#[tokio::test]
async fn empty_file_says_so() {
    let p = Project::new();
    p.write("empty.txt", "");
    let out = p.ok("Read", json!({"file_path": "empty.txt"})).await;
    assert_eq!(
        out,
        format!(
            "(The file {} exists but is empty.)",
            p.path("empty.txt").display()
        )
    );
    assert_eq!(
        p.ctx.files.status(&p.path("empty.txt")),
        ReadStatus::Unchanged
    );
}

#[tokio::test]
async fn binary_directory_and_missing_files_are_refused() {
    let p = Project::new();
    p.write("blob.dat", b"abc\0def");
    p.write("img.png", "not really a png");
    p.write("sub/x.txt", "x");
    let err = p
        .run("Read", json!({"file_path": "blob.dat"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidInput(format!(
            "Cannot read {}: it is a binary file (7 bytes). Read only shows text files.",
            p.path("blob.dat").display()
        ))
    );
    assert!(matches!(
        p.run("Read", json!({"file_path": "img.png"})).await,
        Err(ToolError::InvalidInput(_))
    ));
    let err = p
        .run("Read", json!({"file_path": "sub"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidInput(format!(
            "{} is a directory, not a file. Use Glob to list the files in it.",
            p.path("sub").display()
        ))
    );
    let err = p
        .run("Read", json!({"file_path": "nope.txt"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(format!(
            "File does not exist: {}",
            p.path("nope.txt").display()
        ))
    );
    assert_eq!(p.ctx.files.status(&p.path("blob.dat")), ReadStatus::NotRead);
}

#[tokio::test]
async fn outside_the_sandbox_fails_even_without_the_gate() {
    let p = Project::new();
    let err = p
        .run("Read", json!({"file_path": "/etc/passwd"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(format!(
            "path /etc/passwd is outside the project root {}",
            p.root.display()
        ))
    );
}

#[tokio::test]
async fn invalid_utf8_is_shown_lossily() {
    let p = Project::new();
    p.write("latin1.txt", b"caf\xe9\n");
    let out = p.ok("Read", json!({"file_path": "latin1.txt"})).await;
    assert_eq!(out, "     1\tcaf\u{fffd}");
}

#[tokio::test]
async fn cancelled_before_start() {
    let p = Project::new();
    p.write("a.txt", "a\n");
    p.ctx.cancel.cancel();
    assert_eq!(
        p.run("Read", json!({"file_path": "a.txt"})).await,
        Err(ToolError::Cancelled)
    );
}

#[tokio::test]
async fn a_fifo_is_refused_without_hanging() {
    let p = Project::new();
    nix::unistd::mkfifo(
        &p.root.join("pipe"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let err = p
        .run("Read", json!({"file_path": "pipe"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
}
