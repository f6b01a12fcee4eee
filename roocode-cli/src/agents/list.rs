//! Sub-agents as text: the table of `roocode-cli agents` (short id, name, type, parent,
//! state, background, elapsed, tokens, cost) and the details of `agents show`.

use std::collections::HashMap;

use roocode_protocol::agents::AgentInfo;
use roocode_protocol::session::SessionInfo;

use crate::table::{self, clip};
use crate::timefmt::duration;

/// Longest name or type shown in the table.
const MAX_NAME: usize = 24;
/// Characters of an id shown when the daemon gave no short id.
const FALLBACK_ID: usize = 8;

/// The table of `agents`, one agent a line; `sessions` supply the parents' short ids.
pub fn table(agents: &[AgentInfo], sessions: &[SessionInfo]) -> String {
    let short: HashMap<&str, &str> = sessions
        .iter()
        .map(|s| (s.id.as_str(), s.shown_id()))
        .collect();
    let header = [
        "ID", "NAME", "TYPE", "PARENT", "STATE", "BG", "ELAPSED", "TOKENS", "COST",
    ];
    let mut rows = vec![header.map(String::from).to_vec()];
    for a in agents {
        rows.push(vec![
            shown_id(a),
            clip(&a.name, MAX_NAME),
            clip(&a.agent_type, MAX_NAME),
            shown_parent(&a.parent_id, &short),
            a.state.as_str().to_owned(),
            if a.background { "yes" } else { "no" }.to_owned(),
            duration(a.elapsed_ms / 1000),
            a.tokens.to_string(),
            cost(a.cost_usd),
        ]);
    }
    table::render(&rows)
}

/// Every field of one agent, then its result (or error).
pub fn details(a: &AgentInfo) -> String {
    let mut text = String::new();
    let mut field = |name: &str, value: &str| {
        if !value.is_empty() {
            text.push_str(&format!("{name:<12}{value}\n"));
        }
    };
    field("id:", &a.id);
    field("name:", &a.name);
    field("type:", &a.agent_type);
    field("description:", &a.description);
    field("parent:", &a.parent_id);
    field("state:", a.state.as_str());
    field("background:", if a.background { "yes" } else { "no" });
    field("started:", &a.started_at);
    field("elapsed:", &duration(a.elapsed_ms / 1000));
    field("tool calls:", &a.tool_calls.to_string());
    field("tokens:", &a.tokens.to_string());
    field("cost:", &cost(a.cost_usd));
    field("branch:", a.branch.as_deref().unwrap_or_default());
    field("error:", a.error.as_deref().unwrap_or_default());
    match a.result.as_deref().map(str::trim) {
        Some(result) if !result.is_empty() => {
            text.push_str("\nresult:\n");
            text.push_str(result);
            text.push('\n');
        }
        _ => {}
    }
    text
}

fn shown_id(a: &AgentInfo) -> String {
    if a.short_id.is_empty() {
        short_form(&a.id)
    } else {
        a.short_id.clone()
    }
}

/// A parent's short id as `sessions` shows it, else the start of its id's tail.
fn shown_parent(id: &str, short: &HashMap<&str, &str>) -> String {
    match short.get(id) {
        Some(s) => (*s).to_owned(),
        None => short_form(id),
    }
}

fn short_form(id: &str) -> String {
    let tail = roocode_protocol::short_id::tail(id).unwrap_or(id);
    tail.chars().take(FALLBACK_ID).collect()
}

fn cost(usd: Option<f64>) -> String {
    match usd {
        Some(c) => format!("${c:.4}"),
        None => "-".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use roocode_protocol::agents::AgentState;

    use super::*;
    use crate::test_support::session;
    use roocode_protocol::session::SessionStatus;

    pub fn agent(id: &str, name: &str, state: AgentState, background: bool) -> AgentInfo {
        AgentInfo {
            id: id.into(),
            short_id: String::new(),
            name: name.into(),
            agent_type: "general-purpose".into(),
            parent_id: "019ad9f3-1c2e-7a10-8b00-aaaa12345678".into(),
            description: "find tests".into(),
            state,
            background,
            started_at: "2026-11-30T10:00:00.000Z".into(),
            elapsed_ms: 83_500,
            tokens: 1234,
            cost_usd: Some(0.01234),
            tool_calls: 7,
            result: None,
            error: None,
            branch: None,
        }
    }

    #[test]
    fn a_table_of_agents() {
        let mut a = agent(
            "019ad9f3-2222-7a10-8b00-bbbb87654321",
            "scout",
            AgentState::Running,
            true,
        );
        a.short_id = "bbbb8765".into();
        let mut b = agent(
            "019ad9f3-3333-7a10-8b00-cccc11112222",
            "Explore",
            AgentState::Completed,
            false,
        );
        b.agent_type = "Explore".into();
        b.cost_usd = None;
        b.elapsed_ms = 4_000;
        let mut parent = session("/w", SessionStatus::Running, 1);
        parent.id = a.parent_id.clone();
        parent.short_id = "aaaa1234".into();
        assert_eq!(
            table(&[a.clone(), b], &[parent]),
            "\
ID        NAME     TYPE             PARENT    STATE      BG   ELAPSED  TOKENS  COST
bbbb8765  scout    general-purpose  aaaa1234  running    yes  1m 23s   1234    $0.0123
cccc1111  Explore  Explore          aaaa1234  completed  no   4s       1234    -
"
        );
        // Without the sessions, the parent is shortened from its id.
        assert!(table(&[a], &[]).contains("  aaaa1234  "));
    }

    #[test]
    fn details_end_with_the_result() {
        let mut a = agent("A1", "scout", AgentState::Completed, true);
        a.result = Some("Found 3 tests.\n".into());
        let text = details(&a);
        assert!(
            text.starts_with("id:         A1\nname:       scout\n"),
            "{text}"
        );
        assert!(text.contains("state:      completed\n"), "{text}");
        assert!(text.ends_with("\nresult:\nFound 3 tests.\n"), "{text}");
        assert!(!text.contains("error:"), "{text}");
    }
}
