//! Tests of the Write tool on temp files.

use serde_json::{Value, json};

use crate::tools::test_support::Project;
use crate::tools::{Checkpoints, ReadStatus, ToolError, ToolOutput};

/// A project whose context has a data directory (for checkpoints) and a turn.
pub(crate) fn project() -> Project {
    let mut p = Project::new();
    p.ctx.data_dir = p.root.parent().unwrap().join("data");
    p.ctx.turn_id = "turn-1".to_string();
    p
}

/// The checkpoint manifest of the project's current turn, one JSON value per line.
pub(crate) fn manifest(p: &Project) -> Vec<Value> {
    let dir = Checkpoints::of(&p.ctx).unwrap().dir().to_path_buf();
    match std::fs::read_to_string(dir.join("manifest.jsonl")) {
        Ok(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

pub(crate) fn invalid(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Err(ToolError::InvalidInput(message)) => message,
        other => panic!("expected invalid input, got {other:?}"),
    }
}

#[tokio::test]
async fn creates_a_new_file_with_parents_diff_and_absent_checkpoint() {
    let p = project();
    let out = p
        .run(
            "Write",
            json!({"file_path": "src/new.rs", "content": "fn main() {}\nlet x = 1;\n"}),
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput::text("File created: src/new.rs (2 lines)").with_diff(
            "--- a/src/new.rs\n+++ b/src/new.rs\n@@ -0,0 +1,2 @@\n+fn main() {}\n+let x = 1;\n"
        )
    );
    let path = p.path("src/new.rs");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn main() {}\nlet x = 1;\n"
    );
    assert_eq!(
        manifest(&p),
        [json!({"path": path, "existed": false, "blob": null, "mode": null})]
    );
    // The writer knows the file now: an Edit needs no Read.
    assert_eq!(p.ctx.files.status(&path), ReadStatus::Unchanged);
    p.ok(
        "Edit",
        json!({"file_path": "src/new.rs", "old_string": "x = 1", "new_string": "x = 2"}),
    )
    .await;
}

#[tokio::test]
async fn overwriting_requires_a_read() {
    let p = project();
    p.write("a.txt", "old\n");
    let err = invalid(
        p.run("Write", json!({"file_path": "a.txt", "content": "new\n"}))
            .await,
    );
    assert_eq!(
        err,
        "a.txt has not been read yet. Read it with the Read tool first, then overwrite it."
    );
    assert_eq!(std::fs::read_to_string(p.path("a.txt")).unwrap(), "old\n");
    assert!(manifest(&p).is_empty());
}

#[tokio::test]
async fn overwriting_after_a_read_checkpoints_the_old_content() {
    let p = project();
    p.write("a.txt", "one\ntwo\nthree\n");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(p.path("a.txt")).unwrap().permissions(),
    );
    p.ok("Read", json!({"file_path": "a.txt"})).await;
    let out = p
        .run(
            "Write",
            json!({"file_path": "a.txt", "content": "one\n2\nthree\n"}),
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput::text("File written: a.txt (3 lines)")
            .with_diff("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")
    );
    let path = p.path("a.txt");
    let entries = manifest(&p);
    assert_eq!(
        entries,
        [json!({"path": path, "existed": true, "blob": "000001", "mode": mode})]
    );
    let dir = Checkpoints::of(&p.ctx).unwrap().dir().to_path_buf();
    assert_eq!(
        std::fs::read_to_string(dir.join("blobs/000001")).unwrap(),
        "one\ntwo\nthree\n"
    );
    // A second write in the same turn keeps the first checkpoint.
    p.ok("Write", json!({"file_path": "a.txt", "content": "x"}))
        .await;
    assert_eq!(manifest(&p).len(), 1);
    crate::tools::restore_turn(&p.ctx.data_dir, "test", "turn-1").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\nthree\n");
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_must_be_read_again() {
    let p = project();
    p.write("a.txt", "old\n");
    p.touch("a.txt", 1);
    p.ok("Read", json!({"file_path": "a.txt"})).await;
    p.write("a.txt", "other\n");
    p.touch("a.txt", 2);
    let err = invalid(
        p.run("Write", json!({"file_path": "a.txt", "content": "new\n"}))
            .await,
    );
    assert_eq!(
        err,
        "a.txt has changed on disk since you last read it (the user, a command or another \
         agent modified it). Read it again, then overwrite it based on its current content."
    );
    assert_eq!(std::fs::read_to_string(p.path("a.txt")).unwrap(), "other\n");
    p.ok("Read", json!({"file_path": "a.txt"})).await;
    p.ok("Write", json!({"file_path": "a.txt", "content": "new\n"}))
        .await;
}

#[tokio::test]
async fn directories_and_paths_outside_are_refused() {
    let p = project();
    std::fs::create_dir(p.path("dir")).unwrap();
    let err = invalid(
        p.run("Write", json!({"file_path": "dir", "content": "x"}))
            .await,
    );
    assert_eq!(err, "dir is a directory; give the path of a file.");
    let outside = p.root.parent().unwrap().join("outside.txt");
    let err = p
        .run(
            "Write",
            json!({"file_path": outside.to_str().unwrap(), "content": "x"}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Failed(m) if m.contains("is outside the project root")),
        "{err:?}"
    );
    assert!(!outside.exists());
}

#[tokio::test]
async fn no_data_directory_means_no_write() {
    let mut p = project();
    p.ctx.data_dir = std::path::PathBuf::new();
    let err = p
        .run("Write", json!({"file_path": "a.txt", "content": "x"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(
            "Cannot save a checkpoint before changing the file, so it was left unchanged: \
             no data directory is configured, so no checkpoint can be saved"
                .to_string()
        )
    );
    assert!(!p.path("a.txt").exists());
}

#[test]
fn schema_rejects_unknown_and_missing_fields() {
    let registry = crate::tools::Registry::with_builtins();
    assert_eq!(
        registry.validate("Write", &json!({"file_path": "a", "content": ""})),
        Ok(())
    );
    assert_eq!(
        registry.validate(
            "Write",
            &json!({"file_path": "a", "content": "x", "mode": 1})
        ),
        Err("Invalid input for tool Write:\n\
             - (root): Additional properties are not allowed ('mode' was unexpected); the valid parameters are content, file_path"
            .to_string())
    );
    assert_eq!(
        registry.validate("Write", &json!({"file_path": "a"})),
        Err(
            "Invalid input for tool Write:\n- (root): \"content\" is a required property"
                .to_string()
        )
    );
}

#[tokio::test]
async fn a_redaction_marker_is_refused_unless_the_file_already_holds_it() {
    let p = project();
    let err = invalid(
        p.run(
            "Write",
            json!({"file_path": ".env.local", "content": "TOKEN=[redacted: github-pat]\n"}),
        )
        .await,
    );
    assert!(
        err.contains("the real value was never shown to you"),
        "{err}"
    );
    assert!(!p.path(".env.local").exists());
    p.write("notes.md", "see [redacted: jwt]\n");
    p.ok("Read", json!({"file_path": "notes.md"})).await;
    p.ok(
        "Write",
        json!({"file_path": "notes.md", "content": "still [redacted: jwt]\n"}),
    )
    .await;
}

#[tokio::test]
async fn names_with_control_or_direction_characters_are_not_created() {
    let p = project();
    for name in [
        "a\nb.txt",
        "esc\u{1b}[2J.txt",
        "tab\there",
        "evil\u{202e}txt.sh",
    ] {
        let err = p
            .run("Write", json!({"file_path": name, "content": "x"}))
            .await
            .unwrap_err();
        let ToolError::InvalidInput(message) = err else {
            panic!("{name:?}: {err:?}");
        };
        assert!(message.contains("misleadingly"), "{message}");
        assert!(
            !message.contains('\n'),
            "the character is shown escaped: {message}"
        );
    }
    assert_eq!(std::fs::read_dir(&p.root).unwrap().count(), 0);
}

#[tokio::test]
async fn a_parent_swapped_for_a_link_after_the_check_is_not_written_through() {
    // The swap happens between the sandbox check (Target::resolve) and the write: the
    // tool opens from the checked directory, so the link is refused.
    let p = project();
    let outside = p.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir(p.root.join("sub")).unwrap();
    let target = super::Target::resolve(&p.ctx, "sub/f.txt").unwrap();
    std::fs::remove_dir(p.root.join("sub")).unwrap();
    std::os::unix::fs::symlink(&outside, p.root.join("sub")).unwrap();
    let checkpoints = Checkpoints::of(&p.ctx).unwrap();
    let err = super::write_file(&target, "leak", &p.ctx.files, &checkpoints).unwrap_err();
    assert!(
        err.to_string().contains("refused by the path sandbox"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

#[tokio::test]
async fn overwriting_keeps_the_file_its_mode_and_its_inode() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let p = project();
    let path = p.write("run.sh", "#!/bin/sh\necho old\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    p.ok("Read", json!({"file_path": "run.sh"})).await;
    p.ok(
        "Write",
        json!({"file_path": "run.sh", "content": "#!/bin/sh\necho new\n"}),
    )
    .await;
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(after.ino(), before.ino());
    assert_eq!(after.permissions().mode() & 0o777, 0o750);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "#!/bin/sh\necho new\n"
    );
    // The checkpoint holds the old bytes and mode.
    let entries = manifest(&p);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["mode"].as_u64().unwrap() & 0o777, 0o750);
}
