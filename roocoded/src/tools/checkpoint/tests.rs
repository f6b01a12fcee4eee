//! Tests of the checkpoint store on temp directories.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;

use super::*;

struct Setup {
    _dir: tempfile::TempDir,
    data: PathBuf,
    work: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let work = dir.path().join("work");
    fs::create_dir_all(&work).unwrap();
    Setup {
        _dir: dir,
        data,
        work,
    }
}

fn manifest_lines(store: &Checkpoints) -> Vec<serde_json::Value> {
    fs::read_to_string(store.dir().join(MANIFEST))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn layout_and_manifest() {
    let s = setup();
    let store = Checkpoints::for_turn(&s.data, "sess", "turn1").unwrap();
    assert_eq!(store.dir(), s.data.join("checkpoints/sess/turn1"));
    let old = s.work.join("old.txt");
    fs::write(&old, "before").unwrap();
    fs::set_permissions(&old, fs::Permissions::from_mode(0o640)).unwrap();
    let new = s.work.join("new.txt");
    assert!(store.save_path(&old).unwrap());
    assert!(store.save_path(&new).unwrap());
    assert_eq!(
        manifest_lines(&store),
        [
            serde_json::json!({"path": old, "existed": true, "blob": "000001", "mode": 0o100640}),
            serde_json::json!({"path": new, "existed": false, "blob": null, "mode": null}),
        ]
    );
    assert_eq!(
        fs::read_to_string(store.dir().join("blobs/000001")).unwrap(),
        "before"
    );
}

#[test]
fn first_save_in_a_turn_wins() {
    let s = setup();
    let f = s.work.join("f.txt");
    fs::write(&f, "v1").unwrap();
    let turn1 = Checkpoints::for_turn(&s.data, "sess", "t1").unwrap();
    assert!(turn1.save_path(&f).unwrap());
    fs::write(&f, "v2").unwrap();
    assert!(!turn1.save_path(&f).unwrap());
    assert_eq!(manifest_lines(&turn1).len(), 1);
    // Another turn saves its own starting point.
    let turn2 = Checkpoints::for_turn(&s.data, "sess", "t2").unwrap();
    assert!(turn2.save_path(&f).unwrap());
    fs::write(&f, "v3").unwrap();

    restore_turn(&s.data, "sess", "t2").unwrap();
    assert_eq!(fs::read_to_string(&f).unwrap(), "v2");
    restore_turn(&s.data, "sess", "t1").unwrap();
    assert_eq!(fs::read_to_string(&f).unwrap(), "v1");
}

#[test]
fn restore_puts_content_and_mode_back_and_deletes_created_files() {
    let s = setup();
    let store = Checkpoints::for_turn(&s.data, "sess", "t").unwrap();
    let edited = s.work.join("edited.sh");
    fs::write(&edited, "#!/bin/sh\necho old\n").unwrap();
    fs::set_permissions(&edited, fs::Permissions::from_mode(0o755)).unwrap();
    let created = s.work.join("sub/dir/created.txt");
    let removed = s.work.join("removed.txt");
    fs::write(&removed, "keep me").unwrap();
    let never = s.work.join("never.txt");

    for path in [&edited, &created, &removed, &never] {
        store.save_path(path).unwrap();
    }
    // The turn's changes.
    fs::write(&edited, "echo new\n").unwrap();
    fs::set_permissions(&edited, fs::Permissions::from_mode(0o600)).unwrap();
    fs::create_dir_all(created.parent().unwrap()).unwrap();
    fs::write(&created, "brand new").unwrap();
    fs::remove_file(&removed).unwrap();

    let report = restore_turn(&s.data, "sess", "t").unwrap();
    let actions: Vec<(PathBuf, RestoreAction)> =
        report.into_iter().map(|r| (r.path, r.action)).collect();
    assert_eq!(
        actions,
        [
            (edited.clone(), RestoreAction::Restored),
            (created.clone(), RestoreAction::Deleted),
            (removed.clone(), RestoreAction::Restored),
            (never.clone(), RestoreAction::AlreadyAbsent),
        ]
    );
    assert_eq!(
        fs::read_to_string(&edited).unwrap(),
        "#!/bin/sh\necho old\n"
    );
    assert_eq!(
        fs::metadata(&edited).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert!(!created.exists());
    assert!(created.parent().unwrap().is_dir(), "directories are kept");
    assert_eq!(fs::read_to_string(&removed).unwrap(), "keep me");
    assert!(!never.exists());
}

#[test]
fn one_failing_file_does_not_stop_the_others() {
    let s = setup();
    let store = Checkpoints::for_turn(&s.data, "sess", "t").unwrap();
    let a = s.work.join("a.txt");
    let b = s.work.join("b.txt");
    fs::write(&a, "a").unwrap();
    fs::write(&b, "b").unwrap();
    store.save_path(&a).unwrap();
    store.save_path(&b).unwrap();
    fs::remove_file(store.dir().join("blobs/000001")).unwrap();
    fs::write(&b, "changed").unwrap();
    let report = restore_turn(&s.data, "sess", "t").unwrap();
    assert!(matches!(report[0].action, RestoreAction::Failed(_)));
    assert_eq!(report[1].action, RestoreAction::Restored);
    assert_eq!(fs::read_to_string(&b).unwrap(), "b");
}

#[test]
fn bad_ids_missing_turns_and_directories_are_refused() {
    let s = setup();
    for (session, turn) in [("", "t"), ("s", ""), ("..", "t"), ("s", "a/b"), ("s", ".")] {
        assert!(
            matches!(
                Checkpoints::for_turn(&s.data, session, turn),
                Err(CheckpointError::InvalidId { .. })
            ),
            "{session:?} {turn:?}"
        );
    }
    assert!(matches!(
        Checkpoints::for_turn(Path::new(""), "s", "t"),
        Err(CheckpointError::NoDataDir)
    ));
    assert!(matches!(
        restore_turn(&s.data, "s", "nope"),
        Err(CheckpointError::NoSuchTurn { .. })
    ));
    let store = Checkpoints::for_turn(&s.data, "s", "t").unwrap();
    assert!(matches!(
        store.save_path(&s.work),
        Err(CheckpointError::NotAFile { .. })
    ));
}

#[test]
fn links_planted_since_the_turn_are_not_restored_through() {
    let s = setup();
    let outside = s.work.parent().unwrap().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("bashrc"), "the user's\n").unwrap();
    let store = Checkpoints::for_turn(&s.data, "sess", "t").unwrap();
    let file = s.work.join("notes.txt");
    fs::write(&file, "old\n").unwrap();
    let deep = s.work.join("dir/deep.txt");
    fs::create_dir_all(deep.parent().unwrap()).unwrap();
    fs::write(&deep, "deep\n").unwrap();
    let created = s.work.join("dir2/made.txt");
    for path in [&file, &deep, &created] {
        store.save_path(path).unwrap();
    }
    // Since the turn: the file became a link to a file outside, the directory a link
    // to the outside directory, and the created file's directory too.
    fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(outside.join("bashrc"), &file).unwrap();
    fs::remove_dir_all(s.work.join("dir")).unwrap();
    std::os::unix::fs::symlink(&outside, s.work.join("dir")).unwrap();
    fs::write(outside.join("deep.txt"), "outside deep\n").unwrap();
    fs::write(outside.join("made.txt"), "outside made\n").unwrap();
    std::os::unix::fs::symlink(&outside, s.work.join("dir2")).unwrap();

    let report = restore_turn(&s.data, "sess", "t").unwrap();
    for r in &report {
        let RestoreAction::Failed(why) = &r.action else {
            panic!(
                "{} was restored through a link: {:?}",
                r.path.display(),
                r.action
            );
        };
        assert!(why.contains("symbolic link"), "{why}");
    }
    assert_eq!(
        fs::read_to_string(outside.join("bashrc")).unwrap(),
        "the user's\n"
    );
    assert_eq!(
        fs::read_to_string(outside.join("deep.txt")).unwrap(),
        "outside deep\n"
    );
    assert_eq!(
        fs::read_to_string(outside.join("made.txt")).unwrap(),
        "outside made\n"
    );
}
