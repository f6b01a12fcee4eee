//! Snapshots of real temporary trees: unchanged trees cost no reads, changes made by
//! any means are found and undone, the user's `.git` is never touched, and a restore
//! never writes through a symlink.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::*;

/// Sets a file's mtime an hour back, as for a file nobody touched in a while (a fresh
/// one is "racy" and hashed again).
fn age(path: &Path) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git/refs")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("README.md"), "# hi\n").unwrap();
    std::fs::write(root.join(".env"), "TOKEN=x\n").unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(root.join("target/out.bin"), "built").unwrap();
    for f in ["src/main.rs", "README.md", ".env", ".gitignore"] {
        age(&root.join(f));
    }
    dir
}

fn store() -> (tempfile::TempDir, Snapshots) {
    let dir = tempfile::tempdir().unwrap();
    let snaps = Snapshots::new(dir.path(), Limits::default());
    (dir, snaps)
}

#[test]
fn an_unchanged_tree_is_the_same_snapshot_and_reads_no_file() {
    let t = tree();
    let (_d, snaps) = store();
    let first = snaps.take(t.path()).unwrap();
    let files: Vec<&str> = first.manifest.files.keys().map(String::as_str).collect();
    // Hidden files are kept; .git and what .gitignore ignores are not.
    assert_eq!(files, [".gitignore", "README.md", "src/main.rs"]);
    assert_eq!(first.hashed, 3);
    assert!(first.skipped.iter().any(|s| s.why == Skip::Credentials));
    let again = snaps.take(t.path()).unwrap();
    assert_eq!(again.id, first.id);
    assert_eq!(again.hashed, 0, "known by their stat");
    // A new store instance reads the index from disk.
    let reopened = Snapshots::new(_d.path(), Limits::default());
    assert_eq!(reopened.take(t.path()).unwrap().hashed, 0);
}

#[test]
fn changes_made_by_any_means_are_found_and_undone_without_touching_git() {
    let t = tree();
    let root = t.path();
    let (_d, snaps) = store();
    let before = snaps.take(root).unwrap();
    let git_head = std::fs::read(root.join(".git/HEAD")).unwrap();
    // What a Bash command might do: a new file, a changed one, a removed one.
    std::fs::write(root.join("src/new.rs"), "pub fn x() {}\n").unwrap();
    std::fs::write(root.join("README.md"), "# changed\n").unwrap();
    std::fs::remove_file(root.join("src/main.rs")).unwrap();
    let after = snaps.take(root).unwrap();
    let changes = before.manifest.diff(&after.manifest);
    assert_eq!(
        changes,
        [
            Change::Modified("README.md".into()),
            Change::Removed("src/main.rs".into()),
            Change::Added("src/new.rs".into()),
        ]
    );
    let paths: Vec<String> = changes.iter().map(|c| c.path().to_string()).collect();
    let restored = snaps.restore(root, &before.manifest, &paths);
    assert!(restored.refused.is_empty(), "{restored:?}");
    assert_eq!(restored.removed, ["src/new.rs"]);
    assert!(!root.join("src/new.rs").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("README.md")).unwrap(),
        "# hi\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".env")).unwrap(),
        "TOKEN=x\n"
    );
    assert_eq!(std::fs::read(root.join(".git/HEAD")).unwrap(), git_head);
    assert_eq!(snaps.take(root).unwrap().manifest, before.manifest);
}

#[test]
fn a_restore_never_writes_through_a_symlinked_directory() {
    let t = tree();
    let root = t.path();
    let outside = tempfile::tempdir().unwrap();
    let (_d, snaps) = store();
    let before = snaps.take(root).unwrap();
    std::fs::remove_dir_all(root.join("src")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("src")).unwrap();
    let restored = snaps.restore(root, &before.manifest, &["src/main.rs".to_string()]);
    assert_eq!(restored.refused.len(), 1, "{restored:?}");
    assert!(restored.refused[0].1.contains("symlink"), "{restored:?}");
    assert!(!outside.path().join("main.rs").exists());
}

#[test]
fn the_store_and_excluded_directories_are_never_walked_into() {
    let t = tree();
    let root = t.path();
    let snaps = Snapshots::new(&root.join(".data/snapshots"), Limits::default())
        .excluding([root.join("home"), root.parent().unwrap().to_path_buf()]);
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(root.join("home/config.yaml"), "model: x\n").unwrap();
    snaps.take(root).unwrap();
    let taken = snaps.take(root).unwrap();
    assert!(
        taken
            .manifest
            .files
            .keys()
            .all(|p| !p.starts_with(".data") && !p.starts_with("home")),
        "{:?}",
        taken.manifest.files.keys()
    );
    // A directory above the workspace excludes nothing of it.
    assert!(taken.manifest.files.contains_key("README.md"));
}

#[test]
fn files_over_the_caps_and_symlinks_are_left_out_and_reported() {
    let t = tree();
    let root = t.path();
    std::fs::write(root.join("big.bin"), vec![b'x'; 4096]).unwrap();
    std::os::unix::fs::symlink("README.md", root.join("link.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_file_bytes: 1024,
        ..Limits::default()
    };
    let taken = Snapshots::new(dir.path(), limits).take(root).unwrap();
    assert!(!taken.manifest.files.contains_key("big.bin"));
    let mut skipped: Vec<(String, Skip)> = taken
        .skipped
        .iter()
        .map(|s| (s.path.display().to_string(), s.why.clone()))
        .collect();
    skipped.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        skipped,
        [
            (".env".to_string(), Skip::Credentials),
            ("big.bin".to_string(), Skip::TooLarge { size: 4096 }),
            ("link.md".to_string(), Skip::Symlink)
        ]
    );
}

#[test]
fn a_hard_link_to_a_credentials_file_is_not_copied_either() {
    let t = tree();
    let root = t.path();
    std::fs::hard_link(root.join(".env"), root.join("notes.txt")).unwrap();
    let (_d, snaps) = store();
    let taken = snaps.take(root).unwrap();
    assert!(!taken.manifest.files.contains_key("notes.txt"));
    assert!(
        taken
            .skipped
            .iter()
            .any(|s| s.path == Path::new("notes.txt") && s.why == Skip::Credentials),
        "{:?}",
        taken.skipped
    );
}

#[test]
fn a_prune_removes_what_no_live_snapshot_or_index_names() {
    let work = tree();
    let root = work.path().canonicalize().unwrap();
    let (_dir, snaps) = store();
    let kept = snaps.take(&root).unwrap();
    std::fs::write(root.join("README.md"), "# v2\n").unwrap();
    age(&root.join("README.md"));
    let dropped = snaps.take(&root).unwrap();
    std::fs::write(root.join("README.md"), "# v3\n").unwrap();
    age(&root.join("README.md"));
    let now = snaps.take(&root).unwrap();
    let blob_of = |t: &Taken| t.manifest.files["README.md"].blob.clone();
    let day = Duration::from_secs(24 * 3600);

    // Only the first snapshot is recorded: v2 (and its manifest) go, v1 stays with the
    // live manifest, v3 with the tree's index.
    let pruned = snaps
        .prune(
            &[kept.id.to_string()],
            &[root.display().to_string()],
            Duration::ZERO,
            day,
        )
        .unwrap();
    assert_eq!(pruned.indexes, 0);
    assert!(pruned.blobs.removed >= 2, "{pruned:?}");
    assert!(snaps.objects().contains(&blob_of(&kept)));
    assert!(snaps.objects().contains(&kept.id));
    assert!(!snaps.objects().contains(&blob_of(&dropped)));
    assert!(!snaps.objects().contains(&dropped.id));
    assert!(snaps.objects().contains(&blob_of(&now)));
    // What survived still restores.
    let restored = snaps.restore(&root, &kept.manifest, &["README.md".into()]);
    assert_eq!(restored.written, ["README.md"]);
    assert_eq!(
        std::fs::read_to_string(root.join("README.md")).unwrap(),
        "# hi\n"
    );

    // Within the grace, nothing goes.
    let grace = snaps.prune(&[], &[], day, day).unwrap();
    assert_eq!(grace.blobs.removed, 0);
}
