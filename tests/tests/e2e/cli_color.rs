//! Colour in `roocode-cli`, as a script or a person meets it: `--color always` puts ANSI
//! SGR sequences around the labels of stderr lines (the tool line `● Read a.txt`,
//! `error:`), even into a pipe and with `NO_COLOR` set; by default into a pipe, and
//! with `NO_COLOR=1`, there is not one escape sequence; the answer on stdout and JSON
//! output are never coloured.

use roocode_tests::mock_llm::{Reply, Script};
use serde_json::json;

use crate::harness::{Output, World, finish};

const ESC: char = '\x1b';

/// A world whose model reads `a.txt`, then answers, `sends` times over.
async fn reading_world(sends: usize) -> World {
    let mut script = Script::new();
    for _ in 0..sends {
        script = script
            .reply(Reply::tool_call("Read", json!({"file_path": "a.txt"})))
            .reply(Reply::text("It says alpha."));
    }
    let w = World::new(script).await;
    std::fs::write(w.project_path().join("a.txt"), "alpha\n").unwrap();
    w
}

/// Runs `roocode-cli args…` with extra environment variables.
async fn run_with(w: &World, vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = w.cli(args);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    finish(cmd.spawn().expect("roocode-cli starts")).await
}

/// The stderr line naming the Read call.
fn tool_line(out: &Output) -> &str {
    out.stderr
        .lines()
        .find(|l| l.contains("Read") && l.contains("a.txt"))
        .unwrap_or_else(|| panic!("no tool line on stderr: {out:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn color_always_colours_the_tool_line_and_a_pipe_gets_none_by_default() {
    let w = reading_world(5).await;

    // Always: the tool line's mark and name are coloured, its argument is not; the
    // answer on stdout is the model's text as it is.
    let out = w.run(&["--color", "always", "send", "read a"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        tool_line(&out),
        "\x1b[36m●\x1b[0m \x1b[1mRead\x1b[0m a.txt",
        "{out:?}"
    );
    assert_eq!(out.stdout, "It says alpha.\n");
    // The session line stays as scripts parse it.
    assert!(!out.short_session_id().is_empty());

    // Always wins over NO_COLOR (and the flag may follow the command).
    let out = run_with(
        &w,
        &[("NO_COLOR", "1")],
        &["send", "--color=always", "read a"],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(tool_line(&out).contains("\x1b[1mRead\x1b[0m"), "{out:?}");

    // The default into a pipe: not one escape sequence, on either stream.
    let out = w.run(&["send", "read a"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(tool_line(&out), "● Read a.txt");
    assert!(
        !out.stderr.contains(ESC) && !out.stdout.contains(ESC),
        "{out:?}"
    );

    // NO_COLOR=1 with auto: none either (here a pipe too; the decision table covers
    // a terminal).
    let out = run_with(&w, &[("NO_COLOR", "1")], &["send", "read a"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        !out.stderr.contains(ESC) && !out.stdout.contains(ESC),
        "{out:?}"
    );

    // JSON output is never coloured, whatever the flag says.
    let out = w
        .run(&[
            "--color",
            "always",
            "send",
            "--output",
            "stream-json",
            "read a",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains(ESC), "{}", out.stdout);
    assert!(out.json_lines().len() > 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_labelled_in_red_only_when_asked() {
    let w = World::new(Script::new()).await;
    let out = w.run(&["--color", "always", "rm", "nosuchsession"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.starts_with("\x1b[1;31merror:\x1b[0m "),
        "{out:?}"
    );
    let out = w.run(&["--color", "never", "rm", "nosuchsession"]).await;
    assert!(out.stderr.starts_with("error: "), "{out:?}");
    assert!(!out.stderr.contains(ESC), "{out:?}");
    // A usage error names the values.
    let out = w.run(&["--color", "purple", "sessions"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("always"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_colour_on_the_model_s_own_sequences_are_still_taken_out() {
    // A hostile answer: a window title and a clipboard write in its text and in a tool
    // call's input, read through a pipe by something that shows our colours.
    let hostile = "\x1b]0;pwned\x07\x1b]52;c;cGF3bmVk\x07";
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                json!({"command": format!("echo hi {hostile}")}),
            ))
            .reply(Reply::text(format!("Done.{hostile}"))),
    )
    .await;
    let out = w
        .run(&[
            "--color",
            "always",
            "send",
            "--mode",
            "bypassPermissions",
            "go",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    // Our colours are there; the model's sequences are not.
    assert!(out.stderr.contains("\x1b[1mBash\x1b[0m"), "{out:?}");
    for stream in [&out.stdout, &out.stderr] {
        assert!(!stream.contains("\x1b]"), "{stream:?}");
        assert!(!stream.contains('\x07'), "{stream:?}");
    }
    assert!(out.stdout.contains("Done."), "{out:?}");
}
