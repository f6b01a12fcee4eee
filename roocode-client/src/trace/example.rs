//! A hand-built trace with a line of every kind — two turns of the main agent, model
//! calls with and without cache hits, tool calls allowed by a rule, denied by a rule,
//! allowed by the mode, asked and answered in a TUI, a failed one, a compaction, an
//! injection, a recovery and an error, and a sub-agent under the turn that started it
//! — for the tests of both clients (the CLI's text, the TUI's view) and of this crate.

use roocode_protocol::trace::{
    AgentTrace, IterationTrace, PartSize, RequestParts, SessionTrace, StepTrace, ToolTrace,
    TurnTrace,
};
use serde_json::{Value, json};

/// The session's (and its main agent's) id; short id `7c5e01b2`.
pub const SESSION: &str = "0199d1c2-0000-7000-8000-7c5e01b2a9f0";
/// The sub-agent `scout`'s id; short id `5c0a7e1d`.
pub const SCOUT: &str = "0199d1c2-0000-7000-8000-5c0a7e1d2b3c";
/// The project directory the calls' paths are under.
pub const CWD: &str = "/work/parser";
/// The call denied by the rule `Bash(rm:*)`.
pub const DENIED_CALL: &str = "toolu_01B_rm";
/// The `Edit` asked about and allowed in a TUI.
pub const ASKED_CALL: &str = "toolu_02A_edit";
/// 2026-11-30 12:00:00 UTC.
pub const T0: i64 = 1_796_040_000_000;

const CONFIG: &str = "/work/parser/.roocode/config.yaml";

/// The trace.
pub fn session() -> SessionTrace {
    SessionTrace {
        session_id: SESSION.to_owned(),
        version: 1,
        agent: AgentTrace {
            agent_id: SESSION.to_owned(),
            kind: "main".to_owned(),
            name: String::new(),
            agent_type: String::new(),
            turns: vec![first_turn(), second_turn()],
            agents: Vec::new(),
        },
    }
}

fn first_turn() -> TurnTrace {
    let mut it1 = call("mc-1", 1, 1_500, 1_400, (12_000, 180, 0, 11_500));
    it1.ttft_ms = Some(320);
    it1.cost_usd = Some(0.0512);
    it1.tools = vec![
        ToolTrace {
            outcome: "error".to_owned(),
            error: Some("test parse_empty failed".to_owned()),
            ..tool(
                "toolu_01A_test",
                "Bash",
                json!({"command": "cargo test -p parser"}),
                ("allow", rule("allow", "Bash(cargo test:*)", 4)),
                (1_510, 2_300),
            )
        },
        ToolTrace {
            outcome: "denied".to_owned(),
            error: Some("Permission denied: matches the deny rule Bash(rm:*)".to_owned()),
            ..tool(
                DENIED_CALL,
                "Bash",
                json!({"command": "rm -rf target"}),
                ("deny", rule("deny", "Bash(rm:*)", 2)),
                (3_820, 0),
            )
        },
        tool(
            "toolu_01C_read",
            "Read",
            json!({"file_path": "/work/parser/src/lib.rs"}),
            (
                "allow",
                mode(
                    "default",
                    "read_only",
                    "allowed by the mode: reading is allowed in every mode",
                ),
            ),
            (3_821, 2),
        ),
    ];
    let mut it2 = call("mc-2", 2, 5_200, 1_100, (800, 95, 11_500, 0));
    it2.ttft_ms = Some(250);
    it2.tools = vec![
        ToolTrace {
            answered_by: Some("allow_once by tui (pid 4242)".to_owned()),
            ..tool(
                ASKED_CALL,
                "Edit",
                json!({"file_path": "/work/parser/src/lib.rs", "old_string": "a", "new_string": "b"}),
                (
                    "ask",
                    mode(
                        "default",
                        "file_edit",
                        "asked by the mode: default asks before editing files",
                    ),
                ),
                (5_210, 4),
            )
        },
        tool(
            "toolu_02B_agent",
            "Agent",
            json!({"subagent_type": "Explore", "description": "find the parser tests", "prompt": "Find the tests of parse_empty"}),
            (
                "allow",
                mode(
                    "default",
                    "other",
                    "allowed by the mode: default allows starting agents",
                ),
            ),
            (6_000, 2_100),
        ),
    ];
    let mut it3 = call("mc-3", 3, 9_350, 1_200, (900, 210, 12_300, 0));
    it3.ttft_ms = Some(300);
    it3.stop_reason = Some("end_turn".to_owned());
    TurnTrace {
        number: 1,
        turn_id: "turn-1".to_owned(),
        started_at: T0,
        ended_at: Some(T0 + 9_400),
        stop_reason: Some("end_turn".to_owned()),
        prompt: "fix the failing test in the parser\nand run the tests".to_owned(),
        iterations: vec![it1, it2, it3],
        steps: vec![step(
            "compaction",
            14,
            "2026-11-30T12:00:04.000Z",
            "compacted: 160000 → 42000 tokens",
        )],
        agents: vec![scout()],
    }
}

fn scout() -> AgentTrace {
    let mut it1 = call("mc-s1", 1, 7_000, 900, (3_000, 60, 0, 0));
    it1.model = "anthropic/claude-haiku-4-5".to_owned();
    it1.ttft_ms = Some(150);
    it1.tools = vec![tool(
        "toolu_s1_grep",
        "Grep",
        json!({"pattern": "fn parse_empty", "path": "/work/parser/tests"}),
        (
            "allow",
            mode(
                "default",
                "read_only",
                "allowed by the mode: searching is allowed in every mode",
            ),
        ),
        (7_010, 12),
    )];
    let mut it2 = call("mc-s2", 2, 8_000, 950, (300, 140, 2_900, 0));
    it2.model = "anthropic/claude-haiku-4-5".to_owned();
    it2.stop_reason = Some("end_turn".to_owned());
    AgentTrace {
        agent_id: SCOUT.to_owned(),
        kind: "sub_agent".to_owned(),
        name: "scout".to_owned(),
        agent_type: "Explore".to_owned(),
        turns: vec![TurnTrace {
            number: 1,
            turn_id: "turn-s1".to_owned(),
            started_at: T0 + 6_010,
            ended_at: Some(T0 + 8_050),
            stop_reason: Some("end_turn".to_owned()),
            prompt: "Find the tests of parse_empty".to_owned(),
            iterations: vec![it1, it2],
            steps: Vec::new(),
            agents: Vec::new(),
        }],
        agents: Vec::new(),
    }
}

fn second_turn() -> TurnTrace {
    let mut it1 = call("mc-4", 1, 62_900, 1_800, (0, 0, 0, 0));
    it1.stop_reason = None;
    it1.error = Some("rate limited (429): try again later".to_owned());
    it1.cache_hit_ratio = 0.0;
    TurnTrace {
        number: 2,
        turn_id: "turn-2".to_owned(),
        started_at: T0 + 60_000,
        ended_at: Some(T0 + 63_000),
        stop_reason: Some("error".to_owned()),
        prompt: String::new(),
        iterations: vec![it1],
        steps: vec![
            step(
                "injected",
                40,
                "2026-11-30T12:01:00.010Z",
                "injected (task_notification): <task-notification>",
            ),
            step(
                "recovery",
                41,
                "2026-11-30T12:01:01.000Z",
                "recovery: rate_limited, retry 1/5: 429 Too Many Requests",
            ),
            step(
                "error",
                43,
                "2026-11-30T12:01:02.950Z",
                "error: rate limited (429): try again later",
            ),
        ],
        agents: Vec::new(),
    }
}

/// A model call recorded `at_ms` after [`T0`] that took `latency` ms, with its tokens
/// (input, output, cache read, cache write).
fn call(
    id: &str,
    iteration: u32,
    at_ms: i64,
    latency: u64,
    (input, output, read, write): (u64, u64, u64, u64),
) -> IterationTrace {
    let all = input + read + write;
    let size = |tokens: u64| PartSize {
        chars: tokens * 4,
        tokens,
    };
    IterationTrace {
        model_call_id: id.to_owned(),
        iteration,
        model: "anthropic/claude-sonnet-4-5".to_owned(),
        at: T0 + at_ms,
        request_bytes: all * 4,
        parts: RequestParts {
            system: size(all / 4),
            tools: size(all / 4),
            messages: size(all / 4),
            tool_results: size(all / 4),
            injections: PartSize::default(),
        },
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: read,
        cache_write_tokens: write,
        cache_hit_ratio: if all == 0 {
            0.0
        } else {
            read as f64 / all as f64
        },
        ttft_ms: None,
        latency_ms: latency,
        stop_reason: Some("tool_use".to_owned()),
        error: None,
        cost_usd: None,
        tools: Vec::new(),
        has_bodies: true,
    }
}

/// A tool call that went well, started `at` ms after [`T0`] and ran `ms`.
fn tool(
    call_id: &str,
    name: &str,
    input: Value,
    (decision, decided_by): (&str, Value),
    (at, ms): (i64, u64),
) -> ToolTrace {
    ToolTrace {
        call_id: call_id.to_owned(),
        tool: name.to_owned(),
        input: input.to_string(),
        decision: decision.to_owned(),
        layer: decided_by["layer"].as_str().unwrap_or_default().to_owned(),
        why: decided_by["why"].as_str().unwrap_or_default().to_owned(),
        decided_by,
        answered_by: None,
        outcome: "ok".to_owned(),
        error: None,
        started_at: T0 + at,
        duration_ms: ms,
    }
}

/// `decided_by` of a user rule, as the daemon records it.
fn rule(kind: &str, rule: &str, line: u32) -> Value {
    let verb = match kind {
        "deny" => "denied by rule",
        "ask" => "asked because of rule",
        _ => "allowed by rule",
    };
    json!({
        "layer": "rule",
        "kind": kind,
        "rule": rule,
        "origin": {"file": CONFIG, "line": line},
        "why": format!("{verb} `{rule}` in {CONFIG} line {line}"),
    })
}

/// `decided_by` of the mode layer.
fn mode(mode: &str, case: &str, why: &str) -> Value {
    json!({"layer": "mode", "mode": mode, "case": case, "why": why})
}

fn step(kind: &str, seq: u64, ts: &str, text: &str) -> StepTrace {
    StepTrace {
        kind: kind.to_owned(),
        seq,
        ts: ts.to_owned(),
        text: text.to_owned(),
        detail: json!({"type": kind}),
    }
}
