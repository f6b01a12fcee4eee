//! Agent teams from the user's side, through the real `roocode-cli`: a scripted lead
//! creates team `alpha` and adds teammate `builder`, whose model call waits on a gate
//! (so it is active). Then `team` lists the team, `team alpha --json` shows the member
//! active, `team delete alpha` is refused while it is, `team alpha --watch` follows it
//! going idle and its idle notice, `mailbox` shows that notice read by the woken lead,
//! `/cost` splits the lead's and the teammate's spending, and `team delete` works once
//! the member is idle. A model-run command may never delete a team.

use roocode_tests::mock_llm::{Reply, RouteMatch, Script, ScriptedReply, ToolCall, UsageSpec};
use serde_json::json;

use crate::harness::{World, count, events_until, last_results, team_world};

/// A reply reporting `input` and `output` tokens.
fn used(reply: Reply, input: u64, output: u64) -> ScriptedReply {
    ScriptedReply::new(reply).with_usage(UsageSpec {
        input_tokens: Some(input),
        output_tokens: Some(output),
        cache_read_input_tokens: Some(0),
        cache_creation_input_tokens: Some(0),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_sees_the_team_follows_it_reads_its_mail_and_deletes_it_once_idle() {
    // Every call of claude-sonnet-4-5 ($3 in, $15 out per million tokens) with 1,000
    // tokens in and 100 out costs $0.0045; the teammate's one call, twice that.
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("BUILDER-TASK".into()),
            [
                used(Reply::text("Built the parser; its tests pass."), 2_000, 200)
                    .with_gate("builder"),
            ],
        )
        .reply(used(
            Reply::tool_calls(vec![ToolCall::with_id(
                "call-team",
                "TeamCreate",
                json!({"team_name": "alpha", "description": "the parser"}),
            )]),
            1_000,
            100,
        ))
        .reply(used(
            Reply::tool_calls(vec![ToolCall::with_id(
                "call-builder",
                "Agent",
                json!({"team_name": "alpha", "name": "builder", "description": "build the parser",
                       "prompt": "BUILDER-TASK: build the parser"}),
            )]),
            1_000,
            100,
        ))
        .reply(used(Reply::text("The team is working."), 1_000, 100))
        .reply(used(Reply::text("The builder is done."), 1_000, 100));
    let w = team_world(script).await;

    let out = w.run(&["send", "build the parser with a team"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    // The teammate is inside its model call: active.
    w.mock.wait_for_gate_reached("builder").await;

    let list = w.run(&["team"]).await;
    assert_eq!(list.code, 0, "{list:?}");
    let row = list
        .stdout
        .lines()
        .find(|l| l.starts_with("alpha "))
        .unwrap_or_else(|| panic!("no row for alpha:\n{}", list.stdout));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[2..4], ["1", "1"], "one member, active: {row}");

    let shown = w.run(&["team", "alpha", "--json"]).await;
    assert_eq!(shown.code, 0, "{shown:?}");
    let team = shown.json();
    assert_eq!(team["name"], "alpha");
    assert_eq!(team["lead_session_id"], lead.as_str());
    assert_eq!(team["description"], "the parser");
    let member = &team["members"][0];
    assert_eq!(member["name"], "builder");
    assert_eq!(member["state"], "active");
    assert_eq!(member["unread_mail"], 0);
    assert_eq!(member["backend"], "in-process");
    // The lead's session names the same team.
    let by_lead = w.run(&["team", &lead, "--json"]).await.json();
    assert_eq!(by_lead["id"], team["id"]);
    let page = w.run(&["team", "alpha"]).await;
    assert!(
        page.stdout.starts_with("team alpha (") && page.stdout.contains("\nbuilder  "),
        "{}",
        page.stdout
    );

    let refused = w.run(&["team", "delete", "alpha"]).await;
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(
        refused
            .stderr
            .contains("still has active members (builder)"),
        "{}",
        refused.stderr
    );

    // Follow it live while the teammate finishes.
    let mut watch = w.start(&["team", "alpha", "--watch"]);
    watch
        .until_stderr(|l| l.starts_with("following team alpha"))
        .await;
    w.mock.open_gate("builder");
    watch.until(|l| l == "◦ teammate builder is idle").await;
    watch
        .until(|l| l.starts_with("✉ builder → lead (idle notification)"))
        .await;
    watch.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(watch.finish().await.code, 130);

    // The idle notice woke the lead, which read it.
    let events = events_until(&w, &lead, |e| count(e, "turn_completed") == 2).await;
    assert_eq!(count(&events, "mailbox_message"), 1, "the idle notice");
    // The transcript of the lead shows the team's events on one line each.
    let attach = w.run(&["attach", &lead, "--until-idle"]).await;
    assert!(
        attach
            .stdout
            .contains("⟶ teammate builder (general-purpose) joined team alpha\n"),
        "{}",
        attach.stdout
    );
    assert!(
        attach.stdout.contains("◦ teammate builder is idle\n"),
        "{}",
        attach.stdout
    );

    let mail = w.run(&["mailbox"]).await;
    assert_eq!(mail.code, 0, "{mail:?}");
    assert!(
        mail.stdout.contains("builder → lead (idle notification)"),
        "{}",
        mail.stdout
    );
    assert!(
        mail.stdout.contains("\n    builder finished its turn")
            && mail.stdout.contains("Built the parser; its tests pass."),
        "{}",
        mail.stdout
    );
    assert!(
        !mail.stdout.contains("unread"),
        "read by the lead: {}",
        mail.stdout
    );
    let to_lead = w.run(&["mailbox", "lead", "--json"]).await.json();
    let to_lead = to_lead.as_array().unwrap();
    assert_eq!(to_lead.len(), 1, "{to_lead:?}");
    assert_eq!(to_lead[0]["from"], "builder");
    assert_eq!(to_lead[0]["kind"], "idle_notification");
    assert_eq!(to_lead[0]["read"], true);
    let none = w.run(&["mailbox", "builder", "--json"]).await.json();
    assert_eq!(none, json!([]));
    let nobody = w.run(&["mailbox", "nobody"]).await;
    assert_eq!(nobody.code, 1, "{nobody:?}");
    assert!(
        nobody.stderr.contains("no team has a member `nobody`"),
        "{}",
        nobody.stderr
    );

    // Four calls of the lead ($0.0180) and the teammate's ($0.0090).
    let cost = w.run(&["send", "--session", &lead, "/cost"]).await;
    assert_eq!(cost.code, 0, "{cost:?}");
    let lines: Vec<&str> = cost.stdout.lines().collect();
    assert_eq!(lines[0], "Cost: $0.0270", "{}", cost.stdout);
    assert_eq!(
        lines[1],
        "Team alpha: the lead $0.0180, its 1 teammate $0.0090 (with their helpers); both in the sums below.",
        "{}",
        cost.stdout
    );
    let member_id = member["agent_id"].as_str().unwrap();
    let mate_cost = w.run(&["send", "--session", member_id, "/cost"]).await;
    assert!(
        mate_cost
            .stdout
            .contains("Team alpha in all: $0.0270 (the lead $0.0180, 1 teammate $0.0090)"),
        "{mate_cost:?}"
    );
    let usage = w.run(&["team", "alpha", "--json"]).await.json();
    assert_eq!(usage["members"][0]["state"], "idle");
    assert_eq!(usage["usage"]["input_tokens"], 6_000);

    // Idle: it can go.
    let deleted = w.run(&["team", "delete", "alpha"]).await;
    assert_eq!(deleted.code, 0, "{deleted:?}");
    assert!(
        deleted.stderr.contains("Team \"alpha\" deleted"),
        "{}",
        deleted.stderr
    );
    let empty = w.run(&["team"]).await;
    assert!(empty.stderr.contains("no teams"), "{empty:?}");
    let gone = w.run(&["team", "alpha"]).await;
    assert_eq!(gone.code, 1, "{gone:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_the_model_runs_cannot_delete_a_team() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-team",
                "TeamCreate",
                json!({"team_name": "alpha"}),
            )]))
            .reply(Reply::tool_calls(vec![ToolCall::with_id(
                "call-delete",
                "Bash",
                json!({"command": "sh delete.sh"}),
            )]))
            .reply(Reply::text("Tried.")),
    )
    .await;
    let root = w.project_path();
    // What a prompt-injected model would run.
    std::fs::write(
        root.join("delete.sh"),
        format!(
            "export ROOCODE_HOME='{home}' HOME='{home}'\n'{cli}' team delete alpha 2>&1\necho \"exit=$?\"\n",
            home = w.home.path().display(),
            cli = crate::harness::bin("roocode-cli").display()
        ),
    )
    .unwrap();
    // The OS sandbox is off (it would hide the socket): the daemon's check holds alone.
    // (Local file: a committed project file cannot turn the sandbox off.)
    std::fs::create_dir_all(root.join(".roocode")).unwrap();
    std::fs::write(
        root.join(".roocode/config.local.yaml"),
        "permissions:\n  allow:\n    - \"Bash(sh delete.sh)\"\nsandbox:\n  mode: off\n",
    )
    .unwrap();
    let out = w.run(&["send", "make a team, then delete it"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let result = w
        .mock
        .requests()
        .iter()
        .flat_map(|r| last_results(&r.body))
        .find(|r| r.tool_use_id == "call-delete")
        .expect("the command ran");
    assert!(
        result.content.contains("team.delete refused") && result.content.contains("exit=1"),
        "{result:?}"
    );
    // The team is still there for the user.
    let team = w.run(&["team", "alpha", "--json"]).await;
    assert_eq!(team.code, 0, "{team:?}");
    assert_eq!(team.json()["name"], "alpha");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_team_panel_follows_a_member_from_active_to_idle() {
    use crate::interactive::{Tmux, line_for};
    let script = Script::new()
        .route(
            RouteMatch::FirstUserContains("BUILDER-TASK".into()),
            [ScriptedReply::new(Reply::text("Built the parser.")).with_gate("builder")],
        )
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "TeamCreate",
            json!({"team_name": "alpha"}),
        )]))
        .reply(Reply::tool_calls(vec![ToolCall::new(
            "Agent",
            json!({"team_name": "alpha", "name": "builder", "description": "build the parser",
                   "prompt": "BUILDER-TASK: build the parser"}),
        )]))
        .reply(Reply::text("The team is working."))
        .reply(Reply::text("The builder is done."));
    let w = team_world(script).await;
    let out = w.run(&["send", "build the parser with a team"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lead = out.session_id();
    w.mock.wait_for_gate_reached("builder").await;

    let project = w.project_path().display().to_string();
    let t = Tmux::new("team");
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "one",
        "-x",
        "120",
        "-y",
        "40",
        "-c",
        &project,
        &line_for(&w, "roocode-tui", &format!("--session {lead}")),
    ]);
    // The transcript has the team's lines; the panel (Ctrl+P) its members.
    t.wait_for_on(
        "one",
        "⟶ teammate builder (general-purpose) joined team alpha",
    )
    .await;
    t.run(&["send-keys", "-t", "one", "C-p"]);
    t.wait_for_on("one", "Team alpha (1)").await;
    t.wait_for_on("one", "● builder active").await;
    w.mock.open_gate("builder");
    let screen = t.wait_for_on("one", "○ builder idle").await;
    assert!(
        !screen.contains("● builder active"),
        "one row per member: {screen}"
    );
    t.wait_for_on("one", "✉ builder → lead (idle notification)")
        .await;
}
