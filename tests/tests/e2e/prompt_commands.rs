//! Prompt commands through the real CLI: a Markdown file under `.roocode/commands/` or
//! Claude Code's `.claude/commands/` is a slash command that starts a turn with its
//! body, arguments substituted; `` !`cmd` `` inlines a command's output through Bash's
//! gate (pre-approved by the file's `allowed-tools`), never from the arguments; a
//! subfolder namespaces it (`/git:log`); `.roocode/` shadows `.claude/`, a skill shadows a
//! prompt command, and `/help` says so.

use roocode_tests::mock_llm::{Reply, Script};

use crate::harness::World;

fn write(w: &World, rel: &str, text: &str) {
    let path = w.project_path().join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_commands_start_turns_with_their_arguments_and_inlined_output() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("Reviewed."))
            .reply(Reply::text("Summarised."))
            .reply(Reply::text("Literal.")),
    )
    .await;
    write(
        &w,
        ".claude/commands/check.md",
        "---\ndescription: Review code (Claude's copy)\nargument-hint: <path>\n---\nClaude check of $ARGUMENTS\n",
    );
    write(
        &w,
        ".roocode/commands/check.md",
        "---\ndescription: Review code carefully\nargument_hint: <path> [focus]\n---\nReview $1 carefully, focusing on $2.\n",
    );
    // A skill of the same name wins over a prompt command: the built-in review skill.
    write(&w, ".roocode/commands/review.md", "PROMPT-REVIEW\n");
    write(
        &w,
        ".roocode/commands/git/log.md",
        "---\ndescription: Summarise the log\nallowed-tools: Bash(printf:*)\n---\nSummarise this:\n!`printf 'inline-%s' ok-42`\n",
    );

    let review = w.run(&["send", "/check src/lib.rs errors"]).await;
    assert_eq!(review.code, 0, "{review:?}");
    assert!(review.stdout.contains("Reviewed."), "{review:?}");
    let sent = w.mock.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains("Review src/lib.rs carefully, focusing on errors."),
        "the .roocode command wins and gets its arguments: {sent}"
    );
    assert!(!sent.contains("Claude check"), "{sent}");

    let log = w.run(&["send", "--continue", "/git:log"]).await;
    assert_eq!(log.code, 0, "{log:?}");
    let sent = w.mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("inline-ok-42"),
        "the command's output is inlined: {sent}"
    );

    // Arguments are never inlined: a `!` span in them stays text and runs nothing.
    let marker = w.project_path().join("pwned");
    let args = format!("/check !`touch {}` x", marker.display());
    let literal = w.run(&["send", "--continue", &args]).await;
    assert_eq!(literal.code, 0, "{literal:?}");
    assert!(!marker.exists(), "an argument ran a command");
    let sent = w.mock.requests()[2].body["messages"].to_string();
    assert!(sent.contains("touch"), "{sent}");

    let help = w.run(&["send", "--continue", "/help"]).await;
    assert_eq!(help.code, 0, "{help:?}");
    assert!(help.stdout.contains("Prompt commands:"), "{help:?}");
    assert!(help.stdout.contains("/git:log"), "{help:?}");
    assert!(
        help.stdout
            .lines()
            .any(|l| l.starts_with("/check <path> [focus] ")
                && l.ends_with("  Review code carefully")),
        "{help:?}"
    );
    assert!(
        help.stdout
            .contains(".claude/commands/check.md) is shadowed by"),
        "{help:?}"
    );
    assert!(
        help.stdout
            .contains(".roocode/commands/review.md) is shadowed by the skill /review"),
        "{help:?}"
    );
    assert_eq!(w.mock.request_count(), 3, "/help never reaches the model");

    let unknown = w.run(&["send", "--continue", "/chek x"]).await;
    assert_ne!(unknown.code, 0, "{unknown:?}");
    assert!(
        unknown.stderr.contains("did you mean /check"),
        "{unknown:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inlined_command_has_a_shell_of_its_own() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_call(
                "Bash",
                serde_json::json!({"command": "pwd"}),
            ))
            .reply(Reply::text("Here.")),
    )
    .await;
    let elsewhere = w.project_path().join("sub");
    std::fs::create_dir(&elsewhere).expect("sub");
    write(
        &w,
        ".roocode/commands/where.md",
        &format!(
            "---\ndescription: Where\nallowed-tools: Bash(cd:*), Bash(pwd)\n---\nInlined: !`cd {} && pwd`\n",
            elsewhere.display()
        ),
    );
    std::fs::write(
        w.home.path().join("config.yaml"),
        "permissions:\n  allow: [\"Bash(pwd)\"]\n",
    )
    .expect("config");
    let out = w.run(&["send", "--mode", "dontAsk", "/where"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let requests = w.mock.requests();
    let first = requests[0].body["messages"].to_string();
    assert!(
        first.contains(&format!("Inlined: {}", elsewhere.display())),
        "the command ran where it went: {first}"
    );
    let result = requests[1].body["messages"].to_string();
    let project = w.project_path().display().to_string();
    assert!(
        result.contains(&format!("\"content\":\"{project}\"")),
        "the agent's shell did not move: {result}"
    );
}
