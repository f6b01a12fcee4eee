//! `roocode-cli prune` end to end: a dry run lists the old sessions and removes
//! nothing; `--yes` removes them with their files, and a young session stays.

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::json;

use crate::harness::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_removes_nothing_and_yes_removes_old_sessions_with_their_files() {
    let mut w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": "echo old > f.txt"}),
            ))
            .reply(Reply::text("Done.")),
    )
    .await;
    w.vars.push(("ROOCODE_SNAPSHOT_GRACE_S".into(), "0".into()));
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "work"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let sid = out.session_id();
    let snapshots = w.home.path().join("data/snapshots/objects");
    assert!(snapshots.exists());

    // A day's cutoff keeps it: it is not idle for that long.
    let out = w.run(&["prune", "--older-than", "1d", "--yes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("no session is old enough"), "{out:?}");

    let out = w.run(&["prune", "--older-than", "0m"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("would remove 1 session(s)"), "{out:?}");
    assert!(out.stdout.contains("dry run"), "{out:?}");
    let out = w.run(&["sessions", "--json"]).await;
    assert!(out.stdout.contains(&sid), "still there: {out:?}");

    let out = w
        .run(&["prune", "--older-than", "0m", "--yes", "--json"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["applied"], true);
    assert_eq!(report["sessions"][0]["session_id"], sid.as_str());
    let out = w.run(&["sessions", "--json"]).await;
    assert!(!out.stdout.contains(&sid), "gone: {out:?}");
    let blobs = std::fs::read_dir(snapshots.clone())
        .map(|d| d.flatten().count())
        .unwrap_or(0);
    assert!(
        report["snapshot_bytes"].as_u64().unwrap() > 0,
        "its snapshot files went: {report} ({blobs} fans left)"
    );
}
