//! Start-up resilience: a database that is garbage when the daemon starts is moved aside
//! (with its `-wal`), a fresh one takes its place, and every client is told where the old
//! file went.

use roocode_tests::mock_llm::{Reply, Script};

use crate::harness::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_database_is_moved_aside_and_the_daemon_starts_fresh() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("Before the damage."))
            .reply(Reply::text("After the damage.")),
    )
    .await;
    let first = w.run(&["send", "hello"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let stop = w.run(&["daemon", "stop"]).await;
    assert_eq!(stop.code, 0, "{stop:?}");

    let data = w.home.path().join("data");
    let db = data.join("roocode.db");
    assert!(db.exists(), "database at {}", db.display());
    std::fs::write(&db, vec![0x5Au8; 16 * 1024]).unwrap();
    std::fs::write(data.join("roocode.db-wal"), b"a stale write-ahead log").unwrap();

    let again = w.run(&["send", "hello again"]).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("After the damage."), "{again:?}");
    let warning = again
        .stderr
        .lines()
        .find(|l| l.starts_with("warning: ") && l.contains("moved aside"))
        .unwrap_or_else(|| panic!("no warning on stderr: {again:?}"));
    assert_eq!(
        again
            .stderr
            .lines()
            .filter(|l| l.contains("moved aside"))
            .count(),
        1,
        "once per command: {again:?}"
    );

    let names: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let moved = names
        .iter()
        .find(|n| {
            n.starts_with("roocode.db.corrupt-") && !n.ends_with("-wal") && !n.ends_with("-shm")
        })
        .unwrap_or_else(|| panic!("no moved-aside file in {names:?}"));
    assert!(warning.contains(moved.as_str()), "{warning} names {moved}");
    assert!(
        names.contains(&format!("{moved}-wal")),
        "the stale WAL moved with it: {names:?}"
    );
    let aside = std::fs::read(data.join(moved)).unwrap();
    assert!(
        aside.iter().all(|b| *b == 0x5A),
        "the garbage is kept as it was"
    );

    let info = w.daemon_info().await;
    let warnings = info["warnings"]
        .as_array()
        .expect("warnings in daemon info");
    assert!(
        warnings
            .iter()
            .any(|v| v.as_str().is_some_and(|s| s.contains(moved.as_str()))),
        "{info}"
    );
    let status = w.run(&["daemon", "status"]).await;
    assert!(status.stdout.contains(moved.as_str()), "{status:?}");
}
