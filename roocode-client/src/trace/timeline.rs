//! A trace as lines: per turn (number, the start of its prompt, stop reason,
//! duration), its model calls in order (iteration, model, tokens in and out, cache hit
//! ratio, time to first token, latency, stop reason) each with the tool calls it asked
//! for (duration, decision and the layer that gave it, what it was about, how it ended
//! when not well), the steps between them (compactions, recoveries, injections,
//! rewinds, errors) and the sub-agents and teammates the turn started, indented under
//! it; then a totals line. Each [`TraceLine`] carries its depth, [`LineKind`] and
//! [`Tone`]: the CLI indents it, the TUI styles it too, and a tool line carries its
//! call id for the TUI's "why" on Enter.

use std::path::Path;

use roocode_protocol::trace::{AgentTrace, IterationTrace, SessionTrace, ToolTrace, TurnTrace};

use super::{agent_label, agents, format};

/// Characters of a turn's prompt shown.
const PROMPT_CHARS: usize = 60;
/// Characters of a tool call's error shown.
const ERROR_CHARS: usize = 80;
/// Characters of a step's line shown (an injection's first line can be long).
const STEP_CHARS: usize = 100;

/// What a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A sub-agent or teammate (or the agent a filter kept).
    Agent,
    Turn,
    /// One model call.
    Iteration,
    Tool,
    /// A compaction, recovery, injection, rewind, cleared context or error.
    Step,
    Totals,
}

/// How a line should stand out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    /// Something held back or retried: a denial, a recovery, a cancelled turn.
    Warn,
    /// Something failed.
    Error,
}

/// One line of the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLine {
    /// Indentation level: sub-agents sit one level deeper than their turn's calls.
    pub depth: usize,
    pub kind: LineKind,
    pub tone: Tone,
    pub text: String,
    /// A tool line's call id.
    pub call_id: Option<String>,
}

impl TraceLine {
    fn new(depth: usize, kind: LineKind, tone: Tone, text: String) -> Self {
        TraceLine {
            depth,
            kind,
            tone,
            text,
            call_id: None,
        }
    }
}

/// The trace's sums, its sub-agents' included.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub agents: usize,
    pub turns: usize,
    pub model_calls: usize,
    /// Input tokens, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub tool_calls: usize,
    pub denied: usize,
    pub failed: usize,
    pub cost_usd: Option<f64>,
}

/// The sums of `trace`.
pub fn totals(trace: &SessionTrace) -> Totals {
    let mut t = Totals::default();
    for agent in agents(&trace.agent) {
        t.agents += 1;
        for turn in &agent.turns {
            t.turns += 1;
            for it in &turn.iterations {
                t.model_calls += 1;
                t.input_tokens += it.input_tokens + it.cache_read_tokens + it.cache_write_tokens;
                t.output_tokens += it.output_tokens;
                t.cache_read_tokens += it.cache_read_tokens;
                if let Some(cost) = it.cost_usd {
                    *t.cost_usd.get_or_insert(0.0) += cost;
                }
                for tool in &it.tools {
                    t.tool_calls += 1;
                    match tool.outcome.as_str() {
                        "denied" => t.denied += 1,
                        "error" => t.failed += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    t
}

/// `trace` as lines, paths relative to `cwd` (the session's directory) when under it.
pub fn timeline(trace: &SessionTrace, cwd: Option<&Path>) -> Vec<TraceLine> {
    let mut out = Vec::new();
    agent_lines(&trace.agent, 0, cwd, &mut out);
    if out.is_empty() {
        out.push(TraceLine::new(
            0,
            LineKind::Turn,
            Tone::Normal,
            "no turn recorded yet".to_owned(),
        ));
    }
    out.push(TraceLine::new(
        0,
        LineKind::Totals,
        Tone::Normal,
        totals_text(&totals(trace)),
    ));
    out
}

fn agent_lines(agent: &AgentTrace, depth: usize, cwd: Option<&Path>, out: &mut Vec<TraceLine>) {
    let depth = if agent.kind == "main" {
        depth
    } else {
        let mut text = agent_label(agent);
        if agent.turns.is_empty() {
            text.push_str(" · no turn recorded");
        }
        out.push(TraceLine::new(depth, LineKind::Agent, Tone::Normal, text));
        depth + 1
    };
    for turn in &agent.turns {
        turn_lines(turn, depth, cwd, out);
    }
    for child in &agent.agents {
        agent_lines(child, depth, cwd, out);
    }
}

/// What a turn holds, in the order it happened.
enum Item<'a> {
    Call(&'a IterationTrace),
    Step(&'a roocode_protocol::trace::StepTrace),
    Agent(&'a AgentTrace),
}

fn turn_lines(turn: &TurnTrace, depth: usize, cwd: Option<&Path>, out: &mut Vec<TraceLine>) {
    let tone = match turn.stop_reason.as_deref() {
        Some("error" | "interrupted") => Tone::Error,
        Some("cancelled" | "max_turns" | "max_tokens") => Tone::Warn,
        _ => Tone::Normal,
    };
    out.push(TraceLine::new(depth, LineKind::Turn, tone, turn_text(turn)));
    // Model calls by their start, steps by their time, agents by their first turn;
    // anything without a time after the rest, in the trace's order.
    let mut items: Vec<(i64, Item<'_>)> = Vec::new();
    for it in &turn.iterations {
        items.push((it.at - it.latency_ms as i64, Item::Call(it)));
    }
    for step in &turn.steps {
        let at = format::rfc3339_ms(&step.ts).unwrap_or(i64::MAX);
        items.push((at, Item::Step(step)));
    }
    for agent in &turn.agents {
        let at = agent.turns.first().map_or(i64::MAX, |t| t.started_at);
        items.push((at, Item::Agent(agent)));
    }
    items.sort_by_key(|(at, _)| *at);
    for (_, item) in items {
        match item {
            Item::Call(it) => {
                let tone = if it.error.is_some() {
                    Tone::Error
                } else {
                    Tone::Normal
                };
                out.push(TraceLine::new(
                    depth + 1,
                    LineKind::Iteration,
                    tone,
                    iteration_text(it),
                ));
                for tool in &it.tools {
                    out.push(TraceLine {
                        call_id: Some(tool.call_id.clone()),
                        ..TraceLine::new(
                            depth + 2,
                            LineKind::Tool,
                            tool_tone(tool),
                            tool_text(tool, cwd),
                        )
                    });
                }
            }
            Item::Step(step) => {
                let tone = match step.kind.as_str() {
                    "error" => Tone::Error,
                    "recovery" | "rewound" => Tone::Warn,
                    _ => Tone::Normal,
                };
                out.push(TraceLine::new(
                    depth + 1,
                    LineKind::Step,
                    tone,
                    format::first_line(&step.text, STEP_CHARS),
                ));
            }
            Item::Agent(agent) => agent_lines(agent, depth + 1, cwd, out),
        }
    }
}

/// `Turn 1 · "fix the failing test…" · end_turn · 9.4 s`.
fn turn_text(turn: &TurnTrace) -> String {
    let prompt = format::first_line(&turn.prompt, PROMPT_CHARS);
    let prompt = if prompt.is_empty() {
        "(started by a notification)".to_owned()
    } else {
        format!("\"{prompt}\"")
    };
    let end = match (turn.stop_reason.as_deref(), turn.ended_at) {
        (Some(stop), Some(end)) => format!(
            "{stop} · {}",
            format::duration(u64::try_from(end - turn.started_at).unwrap_or(0))
        ),
        (Some(stop), None) => stop.to_owned(),
        (None, _) => "running".to_owned(),
    };
    format!("Turn {} · {prompt} · {end}", turn.number)
}

/// `#1 anthropic/claude-sonnet-4-5 · in 12,000 out 180 · cache 0% · ttft 320 ms ·
/// 1.4 s · tool_use`.
fn iteration_text(it: &IterationTrace) -> String {
    let input = it.input_tokens + it.cache_read_tokens + it.cache_write_tokens;
    let mut out = format!(
        "#{} {} · in {} out {} · cache {}",
        it.iteration,
        it.model,
        format::count(input),
        format::count(it.output_tokens),
        format::percent(it.cache_hit_ratio)
    );
    if let Some(ttft) = it.ttft_ms {
        out.push_str(&format!(" · ttft {}", format::duration(ttft)));
    }
    out.push_str(&format!(" · {}", format::duration(it.latency_ms)));
    if let Some(stop) = &it.stop_reason {
        out.push_str(&format!(" · {stop}"));
    }
    if let Some(cost) = it.cost_usd {
        out.push_str(&format!(" · ${cost:.4}"));
    }
    if let Some(error) = &it.error {
        out.push_str(&format!(
            " · error: {}",
            format::first_line(error, ERROR_CHARS)
        ));
    }
    out
}

fn tool_tone(tool: &ToolTrace) -> Tone {
    match (tool.decision.as_str(), tool.outcome.as_str()) {
        (_, "error") => Tone::Error,
        ("deny", _) | (_, "denied" | "cancelled") => Tone::Warn,
        _ => Tone::Normal,
    }
}

/// `Bash 12 ms · allow (rule Bash(cargo test:*) .roocode/config.yaml:4) · cargo test`,
/// with how it ended when not well.
fn tool_text(tool: &ToolTrace, cwd: Option<&Path>) -> String {
    let mut out = format!(
        "{} {} · {} ({})",
        tool.tool,
        format::duration(tool.duration_ms),
        tool.decision,
        layer_detail(tool, cwd)
    );
    if let Some(answer) = &tool.answered_by {
        out.push_str(&format!(", answered {answer}"));
    }
    let about = format::input_words(&tool.input, cwd);
    if !about.is_empty() {
        out.push_str(&format!(" · {about}"));
    }
    match tool.outcome.as_str() {
        "ok" => {}
        "error" => match tool.error.as_deref() {
            Some(e) => out.push_str(&format!(" → error: {}", format::first_line(e, ERROR_CHARS))),
            None => out.push_str(" → error"),
        },
        other => out.push_str(&format!(" → {other}")),
    }
    out
}

/// The layer that decided `tool`, in a few words: `rule Bash(rm:*)
/// .roocode/config.yaml:2`, `mode default`, `hook pre_tool_use`, `path_sandbox`.
pub fn layer_detail(tool: &ToolTrace, cwd: Option<&Path>) -> String {
    let by = &tool.decided_by;
    let text = |key: &str| by.get(key).and_then(|v| v.as_str()).unwrap_or_default();
    match tool.layer.as_str() {
        "rule" => {
            let mut out = format!("rule {}", text("rule"));
            match origin(tool, cwd) {
                Some((file, line)) => out.push_str(&format!(" {file}:{line}")),
                None => out.push_str(" (in no config file)"),
            }
            out
        }
        "mode" if !text("mode").is_empty() => format!("mode {}", text("mode")),
        "hook" if !text("point").is_empty() => format!("hook {}", text("point")),
        "not_checked" => "not checked".to_owned(),
        layer => layer.to_owned(),
    }
}

/// A rule's file (relative to `cwd` when under it) and 1-based line.
pub(super) fn origin(tool: &ToolTrace, cwd: Option<&Path>) -> Option<(String, u64)> {
    let origin = tool.decided_by.get("origin")?;
    let file = origin.get("file")?.as_str()?;
    let line = origin.get("line")?.as_u64()?;
    Some((crate::display::relative(file, cwd), line))
}

/// `Total: 3 turns · 6 model calls · in 45,100 out 825 (cache 71%) · 6 tool calls
/// (1 denied, 1 failed) · 1 sub-agent · $0.0512`.
fn totals_text(t: &Totals) -> String {
    let plural = |n: usize, one: &str, many: &str| crate::rewind::plural(n as u64, one, many);
    let ratio = if t.input_tokens == 0 {
        0.0
    } else {
        t.cache_read_tokens as f64 / t.input_tokens as f64
    };
    let mut out = format!(
        "Total: {} · {} · in {} out {} (cache {}) · {}",
        plural(t.turns, "turn", "turns"),
        plural(t.model_calls, "model call", "model calls"),
        format::count(t.input_tokens),
        format::count(t.output_tokens),
        format::percent(ratio),
        plural(t.tool_calls, "tool call", "tool calls"),
    );
    let mut bad = Vec::new();
    if t.denied > 0 {
        bad.push(format!("{} denied", t.denied));
    }
    if t.failed > 0 {
        bad.push(format!("{} failed", t.failed));
    }
    if !bad.is_empty() {
        out.push_str(&format!(" ({})", bad.join(", ")));
    }
    if t.agents > 1 {
        out.push_str(&format!(
            " · {}",
            plural(t.agents - 1, "other agent", "other agents")
        ));
    }
    if let Some(cost) = t.cost_usd {
        out.push_str(&format!(" · ${cost:.4}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::example;

    fn text(lines: &[TraceLine]) -> String {
        lines
            .iter()
            .map(|l| format!("{}{}\n", "  ".repeat(l.depth), l.text))
            .collect()
    }

    #[test]
    fn the_example_reads_in_order_with_the_sub_agent_under_its_turn() {
        let lines = timeline(&example::session(), Some(Path::new(example::CWD)));
        assert_eq!(
            text(&lines),
            "\
Turn 1 · \"fix the failing test in the parser…\" · end_turn · 9.4 s
  #1 anthropic/claude-sonnet-4-5 · in 23,500 out 180 · cache 0% · ttft 320 ms · 1.4 s · tool_use · $0.0512
    Bash 2.3 s · allow (rule Bash(cargo test:*) .roocode/config.yaml:4) · cargo test -p parser → error: test parse_empty failed
    Bash 0 ms · deny (rule Bash(rm:*) .roocode/config.yaml:2) · rm -rf target → denied
    Read 2 ms · allow (mode default) · src/lib.rs
  compacted: 160000 → 42000 tokens
  #2 anthropic/claude-sonnet-4-5 · in 12,300 out 95 · cache 93% · ttft 250 ms · 1.1 s · tool_use
    Edit 4 ms · ask (mode default), answered allow_once by tui (pid 4242) · src/lib.rs
    Agent 2.1 s · allow (mode default) · find the parser tests
  sub-agent scout (Explore) 5c0a7e1d
    Turn 1 · \"Find the tests of parse_empty\" · end_turn · 2.0 s
      #1 anthropic/claude-haiku-4-5 · in 3,000 out 60 · cache 0% · ttft 150 ms · 900 ms · tool_use
        Grep 12 ms · allow (mode default) · tests
      #2 anthropic/claude-haiku-4-5 · in 3,200 out 140 · cache 91% · 950 ms · end_turn
  #3 anthropic/claude-sonnet-4-5 · in 13,200 out 210 · cache 93% · ttft 300 ms · 1.2 s · end_turn
Turn 2 · (started by a notification) · error · 3.0 s
  injected (task_notification): <task-notification>
  recovery: rate_limited, retry 1/5: 429 Too Many Requests
  #1 anthropic/claude-sonnet-4-5 · in 0 out 0 · cache 0% · 1.8 s · error: rate limited (429): try again later
  error: rate limited (429): try again later
Total: 3 turns · 6 model calls · in 55,200 out 685 (cache 48%) · 6 tool calls (1 denied, 1 failed) · 1 other agent · $0.0512
"
        );
        let tool = lines.iter().find(|l| l.kind == LineKind::Tool).unwrap();
        assert_eq!(tool.call_id.as_deref(), Some("toolu_01A_test"));
        assert_eq!(tool.tone, Tone::Error);
        let denied = lines
            .iter()
            .find(|l| l.call_id.as_deref() == Some(example::DENIED_CALL))
            .unwrap();
        assert_eq!(denied.tone, Tone::Warn);
        assert_eq!(lines.last().unwrap().kind, LineKind::Totals);
    }

    #[test]
    fn a_trace_of_one_sub_agent_starts_with_it() {
        let mut t = example::session();
        t.agent = t.agent.turns[0].agents[0].clone();
        let lines = timeline(&t, None);
        assert_eq!(lines[0].kind, LineKind::Agent);
        assert_eq!(lines[0].text, "sub-agent scout (Explore) 5c0a7e1d");
        assert_eq!((lines[1].kind, lines[1].depth), (LineKind::Turn, 1));
        let grep = &lines[3];
        assert_eq!(
            grep.text,
            "Grep 12 ms · allow (mode default) · /work/parser/tests"
        );
        assert_eq!(grep.depth, 3);
    }

    #[test]
    fn an_empty_trace_says_so() {
        let mut t = example::session();
        t.agent.turns.clear();
        let lines = timeline(&t, None);
        assert_eq!(lines[0].text, "no turn recorded yet");
        assert_eq!(
            lines[1].text,
            "Total: 0 turns · 0 model calls · in 0 out 0 (cache 0%) · 0 tool calls"
        );
    }

    #[test]
    fn a_long_step_is_one_short_line() {
        let mut t = example::session();
        t.agent.turns[1].steps[0].text =
            format!("injected (skill_listing): {}\nmore", "x".repeat(300));
        let lines = timeline(&t, None);
        let step = lines
            .iter()
            .find(|l| l.text.starts_with("injected"))
            .unwrap();
        assert_eq!(step.text.chars().count(), STEP_CHARS);
        assert!(step.text.ends_with('…'), "{}", step.text);
    }

    #[test]
    fn layers_in_a_few_words() {
        let t = example::session();
        let mut tool = t.agent.turns[0].iterations[0].tools[1].clone();
        assert_eq!(
            layer_detail(&tool, None),
            "rule Bash(rm:*) /work/parser/.roocode/config.yaml:2"
        );
        tool.decided_by["origin"] = serde_json::Value::Null;
        assert_eq!(
            layer_detail(&tool, None),
            "rule Bash(rm:*) (in no config file)"
        );
        tool.layer = "hook".into();
        tool.decided_by = serde_json::json!({"layer": "hook", "point": "pre_tool_use"});
        assert_eq!(layer_detail(&tool, None), "hook pre_tool_use");
        tool.layer = "path_sandbox".into();
        assert_eq!(layer_detail(&tool, None), "path_sandbox");
    }
}
