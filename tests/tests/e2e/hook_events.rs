//! Hook events through the real binaries, each with its documented payload and effect:
//! `permission_request` answering a question for the user (allow runs the call without
//! a prompt, deny is its error result); `pre_compact` before `/compact` (trigger
//! `manual`) and before an automatic compaction (trigger `auto`); `subagent_stop`
//! sending a sub-agent back to work up to `continuation.max_per_message`, the last time
//! marked FINAL; the user's `pre_tool_use` hooks in a team's teammate; and a
//! `pre_tool_use` hook's `updatedInput` checked again by the rules (a denied
//! replacement is refused, an allowed one is what runs); `session_start`'s `source`
//! (startup, compact, clear, resume after a restart) and `session_end`'s `reason`; the
//! conversation at `transcript_path`.
//!
//! Every hook lives in the user's own config (`ROOCODE_HOME/config.yaml`, no approval
//! needed) and appends the event it reads on stdin to a JSON-lines file of the test's
//! temporary home, which the tests read back.

use std::path::{Path, PathBuf};

use roocode_tests::mock_llm::route::Route;
use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::{Value, json};

use crate::harness::{
    World, count, events_until, first_user, last_results, requests_of, team_world,
};

/// The user's own config (`ROOCODE_HOME/config.yaml`): its hooks need no approval.
fn user_config(w: &World, yaml: &str) {
    std::fs::write(w.home.path().join("config.yaml"), yaml).expect("write config");
}

/// A hook script in the test's home: appends its stdin (the event) as one line to
/// `<log>`, then runs `then` (its answer).
fn recorder(w: &World, name: &str, log: &Path, then: &str) -> String {
    let path = w.home.path().join(format!("{name}.sh"));
    let log = log.display();
    std::fs::write(
        &path,
        format!("#!/bin/sh\ncat >> '{log}'\necho >> '{log}'\n{then}\n"),
    )
    .expect("write hook");
    path.display().to_string()
}

fn log_path(w: &World, name: &str) -> PathBuf {
    w.home.path().join(format!("{name}.jsonl"))
}

/// The events a recorder wrote, oldest first (none when it never ran).
fn recorded(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("one JSON object per run"))
        .collect()
}

/// One `hooks:` entry running `sh <script>`.
fn entry(event: &str, matcher: Option<&str>, script: &str) -> String {
    let matcher = matcher
        .map(|m| format!("    matcher: \"{m}\"\n"))
        .unwrap_or_default();
    format!(
        "  - event: {event}\n{matcher}    action: {{type: command, command: \"sh {script}\"}}\n"
    )
}

/// One tool result as the model saw it.
#[derive(Debug)]
struct Sent {
    content: String,
    is_error: bool,
}

/// The `tool_result` of call `id` in any recorded request.
fn result_of(w: &World, id: &str) -> Sent {
    w.mock
        .requests()
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.tool_use_id == id)
        .map(|r| Sent {
            content: r.content,
            is_error: r.is_error,
        })
        .unwrap_or_else(|| panic!("no result of {id} reached the model"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_hook_allows_a_call_without_a_prompt() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-ruled",
                "Bash",
                json!({"command": "echo ruled"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-asked",
                "Bash",
                json!({"command": "touch allowed.txt"}),
            )]))
            .reply(Reply::text("Created it.")),
    )
    .await;
    let log = log_path(&w, "permission");
    let allow = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow"}}});
    let hook = recorder(&w, "allow", &log, &format!("echo '{allow}'"));
    user_config(
        &w,
        &format!(
            "permissions:\n  allow: [\"Bash(echo ruled)\"]\nhooks:\n{}",
            entry("permission_request", Some("Bash"), &hook)
        ),
    );
    // Default mode: `touch` would ask; with no terminal `send` would print a
    // `permission:` line and wait for an answer that never comes.
    let out = w.run(&["send", "create allowed.txt"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("permission: "), "{out:?}");
    assert!(
        w.project_path().join("allowed.txt").exists(),
        "the hook's allow ran the call"
    );
    let ran = result_of(&w, "call-asked");
    assert!(!ran.is_error, "{ran:?}");

    // Only the call that would have asked reached the hook, in Claude Code's shape.
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(e["hook_event_name"], "PermissionRequest", "{e}");
    assert_eq!(e["tool_name"], "Bash", "{e}");
    assert_eq!(e["tool_input"]["command"], "touch allowed.txt", "{e}");
    assert_eq!(e["tool_use_id"], "call-asked", "{e}");
    assert_eq!(e["session_id"], out.session_id().as_str(), "{e}");
    assert_eq!(e["permission_mode"], "default", "{e}");
    let cwd = PathBuf::from(e["cwd"].as_str().expect("cwd is a string"));
    assert_eq!(
        cwd.canonicalize().expect("cwd exists"),
        w.project_path(),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_hook_s_deny_is_the_call_s_error_result() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-denied",
                "Bash",
                json!({"command": "touch denied.txt"}),
            )]))
            .reply(Reply::text("It was refused.")),
    )
    .await;
    let log = log_path(&w, "permission");
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "no new files today"}}});
    let hook = recorder(&w, "deny", &log, &format!("echo '{deny}'"));
    user_config(
        &w,
        &format!(
            "hooks:\n{}",
            entry("permission_request", Some("Bash"), &hook)
        ),
    );
    let out = w.run(&["send", "create denied.txt"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("permission: "), "{out:?}");
    assert!(
        !w.project_path().join("denied.txt").exists(),
        "the denied call never ran"
    );
    let refused = result_of(&w, "call-denied");
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused
            .content
            .starts_with("Permission denied by a hook: no new files today"),
        "{refused:?}"
    );
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["hook_event_name"], "PermissionRequest");
    assert_eq!(events[0]["tool_input"]["command"], "touch denied.txt");
    assert_eq!(events[0]["session_id"], out.session_id().as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_compact_fires_for_a_compaction_by_hand_with_its_focus() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("First answer."))
            .reply(Reply::text("Second answer."))
            .rule("context compactor", Reply::text("## Goal\nA hand summary.")),
    )
    .await;
    let log = log_path(&w, "compact");
    let hook = recorder(&w, "compact", &log, "");
    user_config(
        &w,
        &format!("hooks:\n{}", entry("pre_compact", None, &hook)),
    );
    let first = w.run(&["send", "start the parser"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    // One exchange: nothing old enough to summarise, so no compaction to announce.
    let short = w.run(&["send", "--session", &id, "/compact"]).await;
    assert_eq!(short.code, 0, "{short:?}");
    assert!(
        short.stdout.starts_with("Nothing to compact yet"),
        "{short:?}"
    );
    assert!(recorded(&log).is_empty(), "{:?}", recorded(&log));
    let second = w.run(&["send", "--session", &id, "add tests"]).await;
    assert_eq!(second.code, 0, "{second:?}");

    let out = w
        .run(&["send", "--session", &id, "/compact the parser"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("Compacted:"), "{out:?}");
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(e["hook_event_name"], "PreCompact", "{e}");
    assert_eq!(e["trigger"], "manual", "{e}");
    assert_eq!(e["custom_instructions"], "the parser", "{e}");
    assert_eq!(e["session_id"], id.as_str(), "{e}");
    assert!(e["cwd"].as_str().is_some(), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_compact_fires_before_an_automatic_compaction() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("One."))
            .reply(Reply::text("Two."))
            .reply(Reply::text("Three, after compaction."))
            .rule("context compactor", Reply::text("## Goal\nAuto summary.")),
    )
    .await;
    let log = log_path(&w, "compact");
    // Only `auto` matches: the event's matcher is its trigger.
    let hook = recorder(&w, "compact", &log, "");
    user_config(
        &w,
        &format!(
            "context:\n  window_tokens: 4000\n  compact_threshold: 0.5\nhooks:\n{}",
            entry("pre_compact", Some("auto"), &hook)
        ),
    );
    let first = w.run(&["send", "one"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    let id = first.session_id();
    w.run(&["send", "--session", &id, "two"]).await;
    let third = w
        .run(&["send", "--session", &id, "--output", "stream-json", "three"])
        .await;
    assert_eq!(third.code, 0, "{third:?}");
    let compactions = third
        .json_lines()
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .count();
    assert!(compactions >= 1, "the small window forced a compaction");

    let events = recorded(&log);
    assert!(!events.is_empty(), "pre_compact fired");
    for e in &events {
        assert_eq!(e["hook_event_name"], "PreCompact", "{e}");
        assert_eq!(e["trigger"], "auto", "{e}");
        assert_eq!(e["custom_instructions"], "", "{e}");
        assert_eq!(e["session_id"], id.as_str(), "{e}");
    }
    // One run per compaction of the session (each fires before its summary call).
    let summaries = w
        .mock
        .requests()
        .iter()
        .filter(|r| {
            roocode_tests::mock_llm::script::system_text(&r.body).contains("context compactor")
        })
        .count();
    assert_eq!(events.len(), summaries, "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_stop_hook_sends_the_sub_agent_back_to_work_up_to_the_cap() {
    let mut script = Script::new()
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-agent",
            "Agent",
            json!({"subagent_type": "general-purpose", "description": "the checklist",
                   "prompt": "SUB-TASK: work through the checklist"}),
        )]))
        .reply(Reply::text("The sub-agent finished."));
    // The sub-agent answers the same every time it is sent back.
    script.routes.push(Route {
        when: first_user("SUB-TASK"),
        replies: Vec::new(),
        fallback: Some(Reply::text("Checklist done, I think.").into()),
    });
    let w = World::new(script).await;
    let log = log_path(&w, "subagent_stop");
    let hook = recorder(
        &w,
        "more",
        &log,
        "echo '{\"decision\": \"block\", \"reason\": \"keep going\"}'",
    );
    user_config(
        &w,
        &format!(
            "continuation: {{max_per_message: 2, max_per_session: 10}}\nhooks:\n{}",
            entry("subagent_stop", None, &hook)
        ),
    );
    let out = w.run(&["send", "delegate the checklist"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let parent = out.session_id();

    // The sub-agent: its answer, then two continuations; the last one is FINAL.
    let child = requests_of(&w, "SUB-TASK");
    assert_eq!(child.len(), 3, "the answer and two continuations");
    let second = child[1]["messages"].to_string();
    assert!(second.contains("continuation 1 of at most 2"), "{second}");
    assert!(second.contains("keep going"), "{second}");
    assert!(!second.contains("FINAL"), "{second}");
    let third = child[2]["messages"].to_string();
    assert!(third.contains("continuation 2 of at most 2"), "{third}");
    assert!(
        third.contains("FINAL: this is the last continuation"),
        "{third}"
    );

    // The hook ran at each stop of the sub-agent (the third time past the cap), never
    // for the parent, with the sub-agent's own session.
    let events = recorded(&log);
    assert_eq!(events.len(), 3, "{events:?}");
    let active: Vec<&Value> = events.iter().map(|e| &e["stop_hook_active"]).collect();
    assert_eq!(active, [&json!(false), &json!(true), &json!(true)]);
    for e in &events {
        assert_eq!(e["hook_event_name"], "SubagentStop", "{e}");
        assert_eq!(e["agent"], "general-purpose", "which agent stopped: {e}");
        let sid = e["session_id"].as_str().expect("a session id");
        assert!(!sid.is_empty() && sid != parent, "{e}");
    }

    // The parent got the sub-agent's answer once and was not continued itself.
    let result = result_of(&w, "call-agent");
    assert!(!result.is_error, "{result:?}");
    assert!(
        result.content.starts_with("Checklist done, I think."),
        "{result:?}"
    );
    let parents = requests_of(&w, "delegate the checklist");
    assert_eq!(parents.len(), 2, "the Agent call and the answer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_s_pre_tool_use_hook_blocks_a_teammate_s_bash_call() {
    let script = Script::new()
        .route(
            first_user("MATE-TASK"),
            [
                Reply::tool_calls(vec![ToolCall::with_id(
                    "call-mate-bash",
                    "Bash",
                    json!({"command": "touch mate.txt"}),
                )]),
                Reply::text("The hook stopped me."),
            ],
        )
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-team",
            "TeamCreate",
            json!({"team_name": "alpha", "description": "hooks"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::with_id(
            "call-mate",
            "Agent",
            json!({"team_name": "alpha", "name": "mate", "description": "make a file",
                   "prompt": "MATE-TASK: create mate.txt"}),
        )]))
        .reply(Reply::text("The team is working."))
        .reply(Reply::text("The mate is done."));
    let w = team_world(script).await;
    let log = log_path(&w, "pre_tool_use");
    let guard = recorder(
        &w,
        "guard",
        &log,
        "echo 'no commands for teammates' >&2\nexit 2",
    );
    user_config(
        &w,
        &format!("hooks:\n{}", entry("pre_tool_use", Some("Bash"), &guard)),
    );
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "team up"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    // The lead's turn, then the one its teammate's idle notice wakes.
    events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;

    assert!(
        !w.project_path().join("mate.txt").exists(),
        "the hook blocked the teammate's command"
    );
    let mine = requests_of(&w, "MATE-TASK");
    assert_eq!(mine.len(), 2, "the call, then the answer to its result");
    let blocked = last_results(&mine[1]);
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0].tool_use_id, "call-mate-bash");
    assert!(blocked[0].is_error, "{blocked:?}");
    assert!(
        blocked[0]
            .content
            .starts_with("Blocked by a hook: no commands for teammates"),
        "{blocked:?}"
    );
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "only the teammate ran Bash: {events:?}");
    let e = &events[0];
    assert_eq!(e["hook_event_name"], "PreToolUse", "{e}");
    assert_eq!(e["tool_input"]["command"], "touch mate.txt", "{e}");
    assert_eq!(e["tool_use_id"], "call-mate-bash", "{e}");
    assert_eq!(e["agent"], "mate", "which agent called: {e}");
    let sid = e["session_id"].as_str().expect("a session id");
    assert!(
        !sid.is_empty() && sid != lead,
        "the teammate's session: {e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_updated_input_a_deny_rule_forbids_is_refused() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-swap",
                "Bash",
                json!({"command": "echo harmless"}),
            )]))
            .reply(Reply::text("Refused.")),
    )
    .await;
    std::fs::write(w.project_path().join("keep.txt"), "keep").unwrap();
    let log = log_path(&w, "pre_tool_use");
    let swap = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"command": "rm keep.txt"}}});
    let hook = recorder(&w, "swap", &log, &format!("echo '{swap}'"));
    user_config(
        &w,
        &format!(
            "permissions:\n  deny: [\"Bash(rm:*)\"]\nhooks:\n{}",
            entry("pre_tool_use", Some("Bash"), &hook)
        ),
    );
    // bypassPermissions: only the deny rule can stop the replacement.
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "say something"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        w.project_path().join("keep.txt").exists(),
        "the replacement was checked again and denied"
    );
    let refused = result_of(&w, "call-swap");
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused
            .content
            .starts_with("Permission denied: denied by rule Bash(rm:*)"),
        "{refused:?}"
    );
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["tool_input"]["command"], "echo harmless");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_updated_input_is_what_runs() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-swap",
                "Bash",
                json!({"command": "echo original > original.txt"}),
            )]))
            .reply(Reply::text("Done.")),
    )
    .await;
    let pre_log = log_path(&w, "pre_tool_use");
    let post_log = log_path(&w, "post_tool_use");
    let swap = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"command": "echo replaced > replaced.txt"}}});
    let hook = recorder(&w, "swap", &pre_log, &format!("echo '{swap}'"));
    let after = recorder(&w, "after", &post_log, "");
    user_config(
        &w,
        &format!(
            "permissions:\n  deny: [\"Bash(rm:*)\"]\nhooks:\n{}{}",
            entry("pre_tool_use", Some("Bash"), &hook),
            entry("post_tool_use", Some("Bash"), &after)
        ),
    );
    let out = w
        .run(&["send", "--mode", "bypassPermissions", "write the file"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let p = w.project_path();
    assert_eq!(
        std::fs::read_to_string(p.join("replaced.txt")).expect("the replacement ran"),
        "replaced\n"
    );
    assert!(!p.join("original.txt").exists(), "the original never ran");
    let ran = result_of(&w, "call-swap");
    assert!(!ran.is_error, "{ran:?}");
    let pre = recorded(&pre_log);
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(
        pre[0]["tool_input"]["command"],
        "echo original > original.txt"
    );
    // What ran is what post_tool_use is told.
    let post = recorded(&post_log);
    assert_eq!(post.len(), 1, "{post:?}");
    assert_eq!(post[0]["hook_event_name"], "PostToolUse");
    assert_eq!(
        post[0]["tool_input"]["command"],
        "echo replaced > replaced.txt"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_reads_the_conversation_at_its_transcript_path() {
    let w = World::new(Script::new().reply(Reply::text("TRANSCRIPT-ANSWER"))).await;
    let log = log_path(&w, "stop");
    let copy = w.home.path().join("copy.jsonl");
    let script = recorder(
        &w,
        "stop",
        &log,
        &format!(
            "p=$(tail -n 2 '{}' | grep -o '\"transcript_path\":\"[^\"]*\"' | cut -d'\"' -f4)\ncp \"$p\" '{}'",
            log.display(),
            copy.display()
        ),
    );
    user_config(&w, &format!("hooks:\n{}", entry("stop", None, &script)));

    let out = w.run(&["send", "TRANSCRIPT-QUESTION"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = recorded(&log);
    assert_eq!(events.len(), 1, "{events:?}");
    let path = events[0]["transcript_path"].as_str().expect("a path");
    assert!(path.ends_with(".jsonl"), "{path}");
    let transcript = std::fs::read_to_string(&copy).expect("the hook copied it");
    assert!(transcript.contains("TRANSCRIPT-QUESTION"), "{transcript}");
    assert!(transcript.contains("TRANSCRIPT-ANSWER"), "{transcript}");
    for line in transcript.lines() {
        serde_json::from_str::<Value>(line).expect("JSON lines");
    }

    let gone = w.run(&["rm", &out.session_id()]).await;
    assert_eq!(gone.code, 0, "{gone:?}");
    assert!(!Path::new(path).exists(), "removed with its session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_says_why_the_session_starts_again() {
    let w = World::new(
        Script::new()
            .reply(Reply::text("First answer."))
            .reply(Reply::text("Second answer."))
            .reply(Reply::text("SUMMARY of the session."))
            .reply(Reply::text("After the restart.")),
    )
    .await;
    let log = log_path(&w, "session");
    let script = recorder(&w, "session", &log, "");
    user_config(
        &w,
        &format!(
            "hooks:\n{}{}",
            entry("session_start", None, &script),
            entry("session_end", None, &script)
        ),
    );
    let first = w.run(&["send", "one"]).await;
    assert_eq!(first.code, 0, "{first:?}");
    for args in [
        &["send", "--continue", "two"][..],
        &["send", "--continue", "/compact"],
        &["send", "--continue", "/clear"],
        &["daemon", "stop"],
        &["send", "--continue", "three"],
    ] {
        let out = w.run(args).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
    }
    let seen: Vec<(String, String)> = recorded(&log)
        .iter()
        .map(|e| {
            assert_eq!(e["session_id"], first.session_id().as_str(), "{e}");
            let why = e.get("source").or(e.get("reason")).cloned();
            (
                e["hook_event_name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                why.and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            )
        })
        .collect();
    let expected = [
        ("SessionStart", "startup"),
        ("SessionStart", "compact"),
        ("SessionEnd", "clear"),
        ("SessionStart", "clear"),
        ("SessionStart", "resume"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(seen, expected);
}
