//! Replay as every client words it: the line of a `replay_divergence` event (`replay
//! diverged at Read (toolu_1): the result differs`) and of a `replay_finished` event,
//! which `roocode-cli replay`, `attach` and the TUI all print the same way.

use roocode_protocol::event::EventPayload;

/// One line for a replay event; `None` for any other event.
pub fn line(payload: &EventPayload) -> Option<String> {
    match payload {
        EventPayload::ReplayDivergence {
            call_id,
            tool,
            message,
            ..
        } => {
            let at = match (tool, call_id) {
                (Some(tool), Some(id)) => format!(" at {tool} ({id})"),
                (Some(tool), None) => format!(" at {tool}"),
                (None, Some(id)) => format!(" at {id}"),
                (None, None) => String::new(),
            };
            Some(format!("replay diverged{at}: {message}"))
        }
        EventPayload::ReplayFinished { message, .. } => Some(message.clone()),
        _ => None,
    }
}

/// The expected and actual results of a divergence, indented, for a terminal; empty
/// for other events.
pub fn details(payload: &EventPayload) -> Vec<String> {
    let EventPayload::ReplayDivergence {
        expected, actual, ..
    } = payload
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (label, text) in [("recorded", expected), ("replayed", actual)] {
        if let Some(text) = text {
            out.push(format!("  {label}:"));
            out.extend(text.lines().take(12).map(|l| format!("    {l}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_divergence_names_the_tool_and_call() {
        let ev = EventPayload::ReplayDivergence {
            kind: "tool_result".into(),
            call_id: Some("toolu_1".into()),
            tool: Some("Read".into()),
            message: "the result differs".into(),
            expected: Some("a\nb".into()),
            actual: Some("a\nc".into()),
        };
        assert_eq!(
            line(&ev).unwrap(),
            "replay diverged at Read (toolu_1): the result differs"
        );
        assert_eq!(
            details(&ev),
            [
                "  recorded:",
                "    a",
                "    b",
                "  replayed:",
                "    a",
                "    c"
            ]
        );
        assert!(line(&EventPayload::ContextCleared).is_none());
    }
}
