//! Workflow events as both clients show them: one line per `workflow` event (a
//! function activated, a phase changed, a transition, an artifact captured, evidence,
//! a continuation), the daemon's own sentence behind a `workflow:` mark.

use roocode_protocol::event::EventPayload;

/// One line for a `workflow` event; `None` for any other event.
pub fn line(payload: &EventPayload) -> Option<String> {
    match payload {
        EventPayload::Workflow { message, .. } => Some(format!("workflow: {message}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::workflow::FunctionPhase;

    #[test]
    fn a_workflow_event_is_one_marked_line() {
        let ev = EventPayload::Workflow {
            step: "phase".into(),
            name: "execute".into(),
            phase: Some(FunctionPhase::Gated),
            message: "function `execute` is gated: waiting for artifact_exists(plan)".into(),
        };
        assert_eq!(
            line(&ev).as_deref(),
            Some("workflow: function `execute` is gated: waiting for artifact_exists(plan)")
        );
        assert_eq!(line(&EventPayload::ContextCleared), None);
    }
}
