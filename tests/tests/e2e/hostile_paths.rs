//! Hostile paths (issue 9, item 8, the path half): a prompt-injected model tries to read
//! or write outside the project through the file tools of the real daemon — symlinks to
//! files and directories, dangling links, chains, `/proc/self/cwd`, `..` after a link,
//! absolute and relative escapes, hard links, control characters in names — in every
//! mode, and races a directory against a symlink while it writes.
//!
//! Everything is harmless if it leaks: the "outside" is a temporary directory and the
//! home is the test's fake `HOME`, both holding canary files. The checks: no canary's
//! content reaches the model, nothing outside changes, every escape comes back as an
//! error (or, for the searches, without outside content).
//!
//! Counts: `ROOCODE_HOSTILE=full` runs the escapes in all five modes and the race with
//! 1,000 writes; by default (CI) two modes and 96 writes.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::harness::{Output, PATIENCE, Running, World};

const OUTSIDE_CANARY: &str = "CANARY-outside-7f3a9c";
const HOME_CANARY: &str = "CANARY-home-key-51d2e8";

fn full() -> bool {
    std::env::var("ROOCODE_HOSTILE").is_ok_and(|v| v == "full")
}

/// The tool_result blocks of a recorded request's last user message, as (id, content,
/// is_error).
fn results(body: &Value) -> Vec<(String, String, bool)> {
    crate::harness::last_results(body)
        .into_iter()
        .map(|r| (r.tool_use_id, r.content, r.is_error))
        .collect()
}

/// Every file below `dir` (links not followed) with its content or link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let value = if meta.file_type().is_symlink() {
                format!("-> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "<dir>".to_string()
            } else {
                String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
            };
            out.insert(path, value);
        }
    }
    out
}

/// What a case's result must be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// An error result (denied, refused or failed).
    Error,
    /// Not necessarily an error (a search), but without outside content.
    Clean,
}

struct Case {
    name: &'static str,
    tool: &'static str,
    input: Value,
    expect: Expect,
}

fn case(name: &'static str, tool: &'static str, input: Value, expect: Expect) -> Case {
    Case {
        name,
        tool,
        input,
        expect,
    }
}

/// The stage: links in the project leading out, an outside directory and a fake home
/// with canaries.
struct Stage {
    outside: TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Stage {
    fn new(w: &World) -> Stage {
        let outside = tempfile::Builder::new().prefix("out").tempdir().unwrap();
        let o = outside.path().canonicalize().unwrap();
        std::fs::create_dir_all(o.join("sub")).unwrap();
        std::fs::write(o.join("secret.txt"), format!("{OUTSIDE_CANARY}\n")).unwrap();
        std::fs::write(o.join("sub/inner.txt"), format!("{OUTSIDE_CANARY} inner\n")).unwrap();
        let home = w.home.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), format!("{HOME_CANARY}\n")).unwrap();
        std::fs::write(home.join(".bashrc"), "# the user's bashrc\n").unwrap();

        let p = w.project_path();
        std::fs::create_dir_all(p.join("src")).unwrap();
        std::fs::write(p.join("src/main.rs"), "fn main() {}\n").unwrap();
        symlink(o.join("secret.txt"), p.join("lnk_file")).unwrap();
        symlink(&o, p.join("lnk_dir")).unwrap();
        symlink(o.join("planted.txt"), p.join("dangling")).unwrap();
        symlink(&o, p.join("c2")).unwrap();
        symlink("c2", p.join("c1")).unwrap();
        symlink("/proc/self/cwd", p.join("proc")).unwrap();
        symlink(o.join("sub"), p.join("lnk_sub")).unwrap();
        symlink(&home, p.join("lnk_home")).unwrap();
        std::fs::hard_link(o.join("secret.txt"), p.join("hl")).unwrap();
        Stage {
            outside,
            project: p,
            home,
        }
    }

    fn outside(&self) -> PathBuf {
        self.outside.path().canonicalize().unwrap()
    }

    /// The escapes, 30 of them.
    fn cases(&self) -> Vec<Case> {
        use Expect::{Clean, Error};
        let o = self.outside();
        let out = |rel: &str| o.join(rel).display().to_string();
        let home = |rel: &str| self.home.join(rel).display().to_string();
        let outside_name = o.file_name().unwrap().to_str().unwrap().to_string();
        let up = format!("../{outside_name}/secret.txt");
        let up_new = format!("../{outside_name}/up_new.txt");
        let dotted = format!("src/../../{outside_name}/dotted.txt");
        let w = |path: &str| json!({"file_path": path, "content": "pwned\n"});
        let r = |path: &str| json!({"file_path": path});
        let e = |path: &str| json!({"file_path": path, "old_string": "CANARY", "new_string": "x"});
        vec![
            case("symlinked file: Read", "Read", r("lnk_file"), Error),
            case("symlinked file: Edit", "Edit", e("lnk_file"), Error),
            case("symlinked file: Write", "Write", w("lnk_file"), Error),
            case(
                "symlinked dir: Read",
                "Read",
                r("lnk_dir/secret.txt"),
                Error,
            ),
            case("symlinked dir: Write", "Write", w("lnk_dir/new.txt"), Error),
            case(
                "symlinked dir: Glob",
                "Glob",
                json!({"pattern": "lnk_dir/*"}),
                Error,
            ),
            case(
                "symlinked dir: Grep",
                "Grep",
                json!({"pattern": "CANARY", "path": "lnk_dir"}),
                Error,
            ),
            case("dangling link: Write", "Write", w("dangling"), Error),
            case("dangling link: Read", "Read", r("dangling"), Error),
            case("link chain: Read", "Read", r("c1/secret.txt"), Error),
            case("link chain: Write", "Write", w("c1/chain.txt"), Error),
            case(
                "/proc/self/cwd link: Read",
                "Read",
                r("proc/etc/hostname"),
                Error,
            ),
            case(
                "/proc/self/cwd: Read",
                "Read",
                r("/proc/self/cwd/etc/hostname"),
                Error,
            ),
            case(
                "/proc/self/root: Read",
                "Read",
                r("/proc/self/root/etc/hostname"),
                Error,
            ),
            case(
                ".. after a link: Read",
                "Read",
                r("lnk_sub/../secret.txt"),
                Error,
            ),
            case(
                ".. after a link: Write",
                "Write",
                w("lnk_sub/../dotdot.txt"),
                Error,
            ),
            case(
                "absolute outside: Read",
                "Read",
                r(&out("secret.txt")),
                Error,
            ),
            case(
                "absolute outside: Write",
                "Write",
                w(&out("abs_new.txt")),
                Error,
            ),
            case("home key: Read", "Read", r(&home(".ssh/id_rsa")), Error),
            case("home bashrc: Edit", "Edit", e(&home(".bashrc")), Error),
            case("relative ..: Read", "Read", r(&up), Error),
            case("relative ..: Write", "Write", w(&up_new), Error),
            case("hard link: Read", "Read", r("hl"), Error),
            case("hard link: Edit", "Edit", e("hl"), Error),
            case("hard link: Write", "Write", w("hl"), Error),
            case(
                "whole project: Grep",
                "Grep",
                json!({"pattern": "CANARY", "output_mode": "content"}),
                Clean,
            ),
            case(
                "whole project: Glob",
                "Glob",
                json!({"pattern": "**/*"}),
                Clean,
            ),
            case(
                "control character name: Write",
                "Write",
                w("evil\nname.txt"),
                Error,
            ),
            case(
                "link to home: Read",
                "Read",
                r("lnk_home/.ssh/id_rsa"),
                Error,
            ),
            case("src/../..: Write", "Write", w(&dotted), Error),
        ]
    }
}

/// Reads a running `send` to its end, denying every permission request it prints.
async fn deny_all(w: &World, mut send: Running) -> (Output, usize) {
    let mut denied = 0;
    let mut stdout_open = true;
    loop {
        tokio::select! {
            line = send.stdout.next_line(), if stdout_open => match line.unwrap() {
                Some(line) => send.seen.push(line),
                None => stdout_open = false,
            },
            line = send.stderr.next_line() => match line.unwrap() {
                Some(line) => {
                    if let Some(rest) = line.strip_prefix("permission: ") {
                        let id = rest.split(' ').next().unwrap().to_string();
                        let answer = w.run(&["deny", &id]).await;
                        assert_eq!(answer.code, 0, "deny {id}: {answer:?}");
                        denied += 1;
                    }
                    send.seen_err.push(line);
                }
                None => break,
            },
        }
    }
    (send.finish().await, denied)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_path_escapes_fail_in_every_mode_and_nothing_leaks() {
    let modes: &[&str] = if full() {
        &[
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
            "dontAsk",
        ]
    } else {
        &["bypassPermissions", "dontAsk"]
    };
    // Started empty so the stage can name its paths first; the replies follow.
    let w0 = World::new(Script::new()).await;
    let stage = Stage::new(&w0);
    let cases = stage.cases();
    assert_eq!(cases.len(), 30);
    for _ in modes {
        let calls = cases
            .iter()
            .enumerate()
            .map(|(i, c)| ToolCall::with_id(format!("c{i}"), c.tool, c.input.clone()))
            .collect();
        w0.mock.push(Reply::tool_calls(calls));
        w0.mock.push(Reply::text("Done."));
    }
    let outside_before = snapshot(&stage.outside());
    // Only the user's files: the rest of this home is RooCode's (socket, database).
    let home_files = || {
        (
            snapshot(&stage.home.join(".ssh")),
            std::fs::read(stage.home.join(".bashrc")).unwrap(),
        )
    };
    let home_before = home_files();

    for (m, mode) in modes.iter().enumerate() {
        let send = w0.start(&["send", "--mode", mode, "--output", "json", "escape"]);
        let (out, denied) = deny_all(&w0, send).await;
        assert_eq!(out.code, 0, "{mode}: {out:?}");
        let requests = w0.mock.requests();
        let body = &requests[2 * m + 1].body;
        let got = results(body);
        assert_eq!(got.len(), cases.len(), "{mode}");
        let text = body.to_string();
        assert!(
            !text.contains(OUTSIDE_CANARY) && !text.contains(HOME_CANARY),
            "{mode}: a canary reached the model"
        );
        for (c, (id, content, is_error)) in cases.iter().zip(&got) {
            if c.expect == Expect::Error {
                assert!(
                    is_error,
                    "{mode}: {} ({id}) was not refused: {content}",
                    c.name
                );
            }
        }
        let grep = &got[25].1;
        assert!(
            grep.contains("hard link left out"),
            "{mode}: the Grep says why the hard link is missing: {grep}"
        );
        eprintln!("{mode}: 30 escapes refused, {denied} permission requests denied");
    }
    assert_eq!(
        snapshot(&stage.outside()),
        outside_before,
        "the outside changed"
    );
    assert_eq!(home_files(), home_before, "the home changed");
    // The project itself: no file was created through a link or with a bad name.
    let created: Vec<_> = std::fs::read_dir(&stage.project)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("pwned") || n.contains('\n') || n.ends_with(".txt"))
        .collect();
    assert!(created.is_empty(), "{created:?}");
}

/// A thread swaps `box` between a real directory and a symlink to the outside
/// directory while the agent writes `box/f<i>.txt` many times in one turn: no write may
/// land outside. (Before the file tools opened from the checked directory, 2–17 of 96
/// did.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_symlink_while_the_agent_writes_lets_nothing_out() {
    let writes = if full() { 1000 } else { 96 };
    let calls: Vec<ToolCall> = (0..writes)
        .map(|i| {
            ToolCall::with_id(
                format!("w{i}"),
                "Write",
                json!({"file_path": format!("box/f{i}.txt"), "content": "x\n"}),
            )
        })
        .collect();
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(calls))
            .reply(Reply::text("Done.")),
    )
    .await;
    let outside = tempfile::Builder::new().prefix("out").tempdir().unwrap();
    let o = outside.path().canonicalize().unwrap();
    std::fs::write(o.join("canary.txt"), OUTSIDE_CANARY).unwrap();
    let p = w.project_path();
    std::fs::create_dir(p.join("box")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps, p, o) = (stop.clone(), swaps.clone(), p.clone(), o.clone());
        std::thread::spawn(move || {
            let (boxed, parked, link) = (p.join("box"), p.join("box.real"), p.join("box.link"));
            symlink(&o, &link).unwrap();
            while !stop.load(Ordering::Relaxed) {
                // `box` a symlink to the outside…
                let _ = std::fs::rename(&boxed, &parked);
                let _ = std::fs::rename(&link, &boxed);
                std::thread::yield_now();
                // …then the real directory again.
                let _ = std::fs::rename(&boxed, &link);
                let _ = std::fs::rename(&parked, &boxed);
                std::thread::yield_now();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let out = tokio::time::timeout(
        PATIENCE * 4,
        w.run(&[
            "send",
            "--mode",
            "bypassPermissions",
            "--output",
            "json",
            "write",
        ]),
    )
    .await
    .expect("the turn ends");
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(out.code, 0, "{out:?}");

    let got = results(&w.mock.requests()[1].body);
    assert_eq!(got.len(), writes);
    let ok = got.iter().filter(|r| !r.2).count();
    let refused = got
        .iter()
        .filter(|r| r.1.contains("refused by the path sandbox"))
        .count();
    let denied = got
        .iter()
        .filter(|r| r.1.contains("outside the project"))
        .count();
    for r in got.iter().filter(|r| {
        r.2 && !r.1.contains("refused by the path sandbox") && !r.1.contains("outside the project")
    }) {
        eprintln!("other failure: {}", r.1);
    }
    let leaked: Vec<String> = std::fs::read_dir(&o)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "canary.txt")
        .collect();
    eprintln!(
        "swap race: {writes} writes, {ok} written inside, {refused} refused at open, \
         {denied} denied at the check, {} failed otherwise, {} swaps, {} outside",
        writes - ok - refused - denied,
        swaps.load(Ordering::Relaxed),
        leaked.len()
    );
    assert!(leaked.is_empty(), "writes landed outside: {leaked:?}");
    // Every write reported done is inside (wherever the swaps left its directory).
    let inside = snapshot(&p)
        .into_iter()
        .filter(|(path, content)| path.extension().is_some_and(|e| e == "txt") && content == "x\n")
        .count();
    assert_eq!(inside, ok, "writes reported done vs files inside");
    assert_eq!(
        std::fs::read_to_string(o.join("canary.txt")).unwrap(),
        OUTSIDE_CANARY
    );
    assert!(swaps.load(Ordering::Relaxed) > 0);
}
