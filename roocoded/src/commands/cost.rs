//! `/cost`: what a session's model calls cost and used — its sub-agents' included, and
//! for a team's lead its teammates' and their helpers' (`team_cost.rs`), with a line
//! saying what the lead and what the teammates spent — in total, per agent (the main agent as `main`, a sub-agent by its name and short id),
//! per purpose (the conversation itself,
//! compaction, calls made by tools such as WebFetch) and per model — as plain-text
//! tables for a monospace terminal.
//!
//! The sums come from SQLite ([`crate::store::Store::call_totals`]); this file only
//! folds them and lays them out. A price that is not known is never shown as zero: a
//! sum is `unknown` when none of its calls has a price, and `$x+` (at least `$x`) when
//! only some have one.

use crate::agent::{AgentError, Engine};
use crate::store::{COMPACTION_TURN_ID, CONVERSATION_PURPOSE, CallTotals, SessionRow};

/// The `/cost` report of `row`'s session.
pub async fn report(engine: &Engine, row: &SessionRow) -> Result<String, AgentError> {
    let store = engine.store();
    let team = super::team_cost::team_totals(engine, &row.id).await?;
    let mut totals = match &team {
        Some(t) if t.lead_session_id == row.id => t.totals.clone(),
        _ => store.call_totals(&row.id).await?,
    };
    let team_line = team
        .as_ref()
        .map(|t| team_line(t, t.lead_session_id == row.id));
    // Sub-agents are shown by name (with the start of their id: names repeat).
    let mut names: std::collections::HashMap<String, String> = store
        .children(&row.id)
        .await?
        .into_iter()
        .map(|c| {
            let tail = roocode_protocol::short_id::tail(&c.id).unwrap_or(&c.id);
            let short: String = tail.chars().take(8).collect();
            let label = format!("{} ({short})", c.name);
            (c.id, label)
        })
        .collect();
    if let Some(t) = &team {
        names.extend(t.labels.clone());
    }
    for t in &mut totals {
        if let Some(name) = names.get(&t.agent_id) {
            t.agent_id.clone_from(name);
        }
    }
    Ok(render(&row.id, &totals, team_line.as_deref()))
}

/// What a team spent, split between its lead (with its own sub-agents) and its
/// teammates (with their helpers): in the lead's report, the parts of the sums below
/// it; in a teammate's, the team's whole.
fn team_line(team: &super::team_cost::TeamTotals, lead_here: bool) -> String {
    let (mut lead, mut mates, mut all) = (Sum::default(), Sum::default(), Sum::default());
    for t in &team.totals {
        all.add(t);
        if team.teammate_agents.contains(&t.agent_id) {
            mates.add(t);
        } else {
            lead.add(t);
        }
    }
    let teammates = plural(team.members as i64, "teammate", "teammates");
    if lead_here {
        format!(
            "Team {}: the lead {}, its {teammates} {} (with their helpers); both in the sums below.",
            team.name,
            lead.cost_cell(),
            mates.cost_cell()
        )
    } else {
        format!(
            "Team {} in all: {} (the lead {}, {teammates} {}); /cost in the lead's session shows each agent.",
            team.name,
            all.cost_cell(),
            lead.cost_cell(),
            mates.cost_cell()
        )
    }
}

/// Sums of some model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sum {
    calls: i64,
    failed: i64,
    unpriced: i64,
    retries: i64,
    input: i64,
    output: i64,
    cache_read: i64,
    cache_write: i64,
    /// The known costs only; see [`Sum::cost`].
    known_cost: f64,
    latency_ms: i64,
}

/// What can honestly be said of a sum's cost.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cost {
    /// Every successful call had a price.
    Exact(f64),
    /// Some calls had no price: the cost is at least this.
    AtLeast(f64),
    /// No successful call had a price.
    Unknown,
}

impl Sum {
    fn add(&mut self, t: &CallTotals) {
        self.calls += t.calls;
        self.failed += t.failed_calls;
        self.unpriced += t.unpriced_calls;
        self.retries += t.retries;
        self.input += t.input_tokens;
        self.output += t.output_tokens;
        self.cache_read += t.cache_read_tokens;
        self.cache_write += t.cache_write_tokens;
        self.known_cost += t.known_cost_usd.unwrap_or(0.0);
        self.latency_ms += t.latency_ms;
    }

    fn cost(&self) -> Cost {
        let priced = self.calls - self.failed - self.unpriced;
        if self.unpriced == 0 {
            Cost::Exact(self.known_cost)
        } else if priced == 0 {
            Cost::Unknown
        } else {
            Cost::AtLeast(self.known_cost)
        }
    }

    /// `$0.0136`, `$0.0136+` (at least) or `unknown`.
    fn cost_cell(&self) -> String {
        match self.cost() {
            Cost::Exact(c) => dollars(c),
            Cost::AtLeast(c) => format!("{}+", dollars(c)),
            Cost::Unknown => "unknown".to_string(),
        }
    }

    /// The cells of the main table after the label.
    fn cells(&self) -> Vec<String> {
        vec![
            self.cost_cell(),
            thousands(self.input),
            thousands(self.output),
            thousands(self.cache_read),
            thousands(self.cache_write),
            thousands(self.calls),
            duration(self.latency_ms),
        ]
    }
}

/// Sums by label, in the order the labels first appear.
#[derive(Default)]
struct Breakdown(Vec<(String, Sum)>);

impl Breakdown {
    fn add(&mut self, label: &str, t: &CallTotals) {
        match self.0.iter_mut().find(|(l, _)| l == label) {
            Some((_, sum)) => sum.add(t),
            None => {
                let mut sum = Sum::default();
                sum.add(t);
                self.0.push((label.to_string(), sum));
            }
        }
    }
}

/// The report for `totals` (the store's groups of one session, `session_id`), with
/// `team`'s line under the first when the session is in a team.
fn render(session_id: &str, totals: &[CallTotals], team: Option<&str>) -> String {
    if totals.is_empty() {
        let none = "No model calls yet: this session has cost nothing.".to_string();
        return match team {
            Some(line) => format!("{none}\n{line}"),
            None => none,
        };
    }
    let mut session = Sum::default();
    let mut agents = Breakdown::default();
    let mut purposes = Breakdown::default();
    let mut models = Breakdown::default();
    for t in totals {
        session.add(t);
        let agent = if t.agent_id == session_id {
            "main"
        } else {
            t.agent_id.as_str()
        };
        agents.add(agent, t);
        purposes.add(&t.purpose, t);
        models.add(&t.model, t);
    }
    // The main agent first, then the others as they started; the conversation, then
    // compaction, then each tool (sorts are stable).
    agents.0.sort_by_key(|(label, _)| label != "main");
    purposes.0.sort_by_key(|(label, _)| match label.as_str() {
        CONVERSATION_PURPOSE => 0,
        COMPACTION_TURN_ID => 1,
        _ => 2,
    });

    let mut rows = vec![Row::cells("Session", &session)];
    for (heading, breakdown) in [("Agent", &agents), ("Purpose", &purposes)] {
        rows.push(Row::Blank);
        rows.push(Row::Heading(heading));
        for (label, sum) in &breakdown.0 {
            rows.push(Row::cells(&format!("  {label}"), sum));
        }
    }
    let header = [
        "",
        "cost",
        "input",
        "output",
        "cache read",
        "cache write",
        "calls",
        "time",
    ];
    let model_rows: Vec<Row> = models
        .0
        .iter()
        .map(|(model, sum)| Row::Cells(vec![model.clone(), sum.cost_cell(), thousands(sum.calls)]))
        .collect();

    let mut out = vec![cost_line(&session)];
    out.extend(team.map(str::to_string));
    out.push(String::new());
    out.extend(table(&header, &rows));
    out.push(String::new());
    out.extend(table(&["model", "cost", "calls"], &model_rows));
    let notes: Vec<String> = [price_note(&models), calls_note(&session)]
        .into_iter()
        .flatten()
        .collect();
    if !notes.is_empty() {
        out.push(String::new());
        out.extend(notes);
    }
    out.join("\n")
}

/// The first line: the session's cost, and how sure it is.
fn cost_line(session: &Sum) -> String {
    match session.cost() {
        Cost::Exact(c) => format!("Cost: {}", dollars(c)),
        Cost::AtLeast(c) => format!(
            "Cost: at least {} ({} of {} model calls had no known price; `+` marks the sums \
             that leave them out)",
            dollars(c),
            thousands(session.unpriced),
            thousands(session.calls),
        ),
        Cost::Unknown => "Cost: unknown (no model call had a known price)".to_string(),
    }
}

/// Which models have no known price, and what to do about it.
fn price_note(models: &Breakdown) -> Option<String> {
    let unpriced: Vec<&str> = models
        .0
        .iter()
        .filter(|(_, sum)| sum.unpriced > 0)
        .map(|(model, _)| model.as_str())
        .collect();
    if unpriced.is_empty() {
        return None;
    }
    Some(format!(
        "No known price for {}: prices can be set under `prices:` in config.yaml.",
        unpriced.join(", ")
    ))
}

/// Failed calls and retried requests, when there were any.
fn calls_note(session: &Sum) -> Option<String> {
    let retries = session.retries;
    let mut parts = Vec::new();
    if session.failed > 0 {
        parts.push(format!(
            "{} failed (no tokens recorded)",
            plural(session.failed, "model call", "model calls")
        ));
    }
    if retries > 0 {
        parts.push(format!(
            "{} retried",
            plural(retries, "request was", "requests were")
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut note = parts.join("; ");
    note.push('.');
    Some(note)
}

/// One line of a table.
enum Row<'a> {
    Blank,
    /// A section title, on its own line.
    Heading(&'a str),
    /// A label (left-aligned) and numbers (right-aligned).
    Cells(Vec<String>),
}

impl Row<'_> {
    fn cells(label: &str, sum: &Sum) -> Self {
        let mut cells = vec![label.to_string()];
        cells.extend(sum.cells());
        Row::Cells(cells)
    }
}

/// `rows` under `header`, the first column left-aligned and the others right-aligned,
/// columns two spaces apart.
fn table(header: &[&str], rows: &[Row]) -> Vec<String> {
    let header = Row::Cells(header.iter().map(ToString::to_string).collect());
    let rows = || std::iter::once(&header).chain(rows);
    let mut widths: Vec<usize> = Vec::new();
    for row in rows() {
        if let Row::Cells(cells) = row {
            widths.resize(widths.len().max(cells.len()), 0);
            for (w, cell) in widths.iter_mut().zip(cells) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    rows()
        .map(|row| match row {
            Row::Blank => String::new(),
            Row::Heading(title) => (*title).to_string(),
            Row::Cells(cells) => {
                let mut line = String::new();
                for (i, (cell, width)) in cells.iter().zip(&widths).enumerate() {
                    if i == 0 {
                        line.push_str(&format!("{cell:<width$}"));
                    } else {
                        line.push_str(&format!("  {cell:>width$}"));
                    }
                }
                line.trim_end().to_string()
            }
        })
        .collect()
}

/// `1234567` → `1,234,567`.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `$0.0136`, `$1,234.5000`: four decimals, as small sessions cost fractions of a cent.
fn dollars(usd: f64) -> String {
    let fixed = format!("{usd:.4}");
    let (whole, fraction) = fixed.split_once('.').unwrap_or((&fixed, "0000"));
    let whole = whole.parse::<i64>().map_or(whole.to_string(), thousands);
    format!("${whole}.{fraction}")
}

/// `850ms`, `12.3s`, `4m05s`, `2h07m`: compact, for a narrow column; truncated, never
/// rounded up.
fn duration(ms: i64) -> String {
    match ms {
        ..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{}.{}s", ms / 1000, ms % 1000 / 100),
        60_000..3_600_000 => format!("{}m{:02}s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{}h{:02}m", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

/// `1 model call`, `2 model calls`.
fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `calls` successful calls of `agent` for `purpose` with `model`, `input` tokens
    /// and `cost` dollars each (`None`: no known price).
    fn group(
        agent: &str,
        purpose: &str,
        model: &str,
        calls: i64,
        input: i64,
        cost: Option<f64>,
    ) -> CallTotals {
        CallTotals {
            agent_id: agent.into(),
            purpose: purpose.into(),
            model: model.into(),
            calls,
            failed_calls: 0,
            unpriced_calls: if cost.is_some() { 0 } else { calls },
            retries: 0,
            input_tokens: calls * input,
            output_tokens: calls * input / 20,
            cache_read_tokens: calls * input * 3,
            cache_write_tokens: calls * 512,
            known_cost_usd: cost.map(|c| c * calls as f64),
            latency_ms: calls * 1_250,
        }
    }

    const SONNET: &str = "anthropic/claude-sonnet-4-5";

    #[test]
    fn every_agent_purpose_and_model_has_a_row_main_and_the_conversation_first() {
        let totals = [
            group("s1", "WebFetch", SONNET, 2, 3_000, Some(0.01)),
            group("s1", "conversation", SONNET, 12, 10_000, Some(0.0425)),
            group(
                "agent-1f3a",
                "conversation",
                "anthropic/claude-haiku-4-5",
                7,
                4_000,
                Some(0.004),
            ),
            group("s1", "compaction", SONNET, 1, 90_000, Some(0.3)),
        ];
        let expected = "\
Cost: $0.8580

                   cost    input  output  cache read  cache write  calls   time
Session         $0.8580  244,000  12,200     732,000       11,264     22  27.5s

Agent
  main          $0.8300  216,000  10,800     648,000        7,680     15  18.7s
  agent-1f3a    $0.0280   28,000   1,400      84,000        3,584      7   8.7s

Purpose
  conversation  $0.5380  148,000   7,400     444,000        9,728     19  23.7s
  compaction    $0.3000   90,000   4,500     270,000          512      1   1.2s
  WebFetch      $0.0200    6,000     300      18,000        1,024      2   2.5s

model                           cost  calls
anthropic/claude-sonnet-4-5  $0.8300     15
anthropic/claude-haiku-4-5   $0.0280      7";
        assert_eq!(render("s1", &totals, None), expected);
    }

    #[test]
    fn unknown_prices_are_never_counted_as_zero() {
        let only_unpriced = [group("s1", "conversation", "local/llama", 3, 1_000, None)];
        let expected = "\
Cost: unknown (no model call had a known price)

                   cost  input  output  cache read  cache write  calls  time
Session         unknown  3,000     150       9,000        1,536      3  3.7s

Agent
  main          unknown  3,000     150       9,000        1,536      3  3.7s

Purpose
  conversation  unknown  3,000     150       9,000        1,536      3  3.7s

model           cost  calls
local/llama  unknown      3

No known price for local/llama: prices can be set under `prices:` in config.yaml.";
        assert_eq!(render("s1", &only_unpriced, None), expected);
    }

    #[test]
    fn some_unknown_prices_make_a_lower_bound_and_failures_and_retries_are_noted() {
        let mut failed = group("s1", "conversation", SONNET, 3, 1_000, Some(0.01));
        failed.failed_calls = 1;
        failed.retries = 2;
        failed.known_cost_usd = Some(0.02);
        let totals = [
            failed,
            group("s1", "compaction", "local/llama", 1, 1_000, None),
        ];
        let report = render("s1", &totals, None);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[0],
            "Cost: at least $0.0200 (1 of 4 model calls had no known price; `+` marks the sums \
             that leave them out)"
        );
        let row = |label: &str| {
            lines
                .iter()
                .find(|l| l.trim_start().starts_with(label))
                .map(|l| l.split_whitespace().nth(1).unwrap_or_default())
                .unwrap_or_default()
        };
        assert_eq!(row("Session"), "$0.0200+");
        assert_eq!(row("main"), "$0.0200+");
        assert_eq!(
            row("conversation"),
            "$0.0200",
            "all its successful calls had a price"
        );
        assert_eq!(row("compaction"), "unknown");
        assert_eq!(
            lines[lines.len() - 2..],
            [
                "No known price for local/llama: prices can be set under `prices:` in config.yaml.",
                "1 model call failed (no tokens recorded); 2 requests were retried."
            ]
        );
    }

    #[test]
    fn a_team_lead_sees_what_it_and_its_teammates_spent() {
        let totals = vec![
            group("lead", "conversation", SONNET, 2, 1_000, Some(0.01)),
            group("explore-1", "conversation", SONNET, 1, 1_000, Some(0.005)),
            group("builder", "conversation", SONNET, 3, 1_000, Some(0.01)),
            group("helper-of-builder", "conversation", SONNET, 1, 1_000, None),
        ];
        let team = crate::commands::team_cost::TeamTotals {
            name: "alpha".into(),
            lead_session_id: "lead".into(),
            members: 1,
            teammate_agents: ["builder".to_string(), "helper-of-builder".to_string()].into(),
            totals: totals.clone(),
            labels: Default::default(),
        };
        let line = team_line(&team, true);
        assert_eq!(
            line,
            "Team alpha: the lead $0.0250, its 1 teammate $0.0300+ (with their helpers); both in the sums below."
        );
        let report = render("lead", &totals, Some(&line));
        let lines: Vec<&str> = report.lines().collect();
        assert!(lines[0].starts_with("Cost: at least $0.0550"), "{report}");
        assert_eq!(lines[1], line);
        assert_eq!(lines[2], "");
        assert!(report.contains("  builder "), "{report}");
        assert_eq!(
            team_line(&team, false),
            "Team alpha in all: $0.0550+ (the lead $0.0250, 1 teammate $0.0300+); /cost in the lead's session shows each agent."
        );
    }

    #[test]
    fn a_session_without_calls_says_so() {
        assert_eq!(
            render("s1", &[], None),
            "No model calls yet: this session has cost nothing."
        );
    }

    #[test]
    fn numbers_are_grouped_and_durations_compact() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-12_345), "-12,345");
        assert_eq!(dollars(0.0), "$0.0000");
        assert_eq!(dollars(0.013635), "$0.0136");
        assert_eq!(dollars(1234.5), "$1,234.5000");
        assert_eq!(duration(850), "850ms");
        assert_eq!(duration(59_999), "59.9s");
        assert_eq!(duration(245_000), "4m05s");
        assert_eq!(duration(7_620_000), "2h07m");
    }
}
