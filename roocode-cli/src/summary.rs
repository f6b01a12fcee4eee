//! The `--output json` summary of a turn: the final assistant message's text, the
//! summed usage, the stop reason and, on failure, `error: {kind, message}`.

use roocode_protocol::content::{ContentBlock, Usage};
use roocode_protocol::event::{ErrorInfo, Event, EventPayload, StopReason};
use serde::Serialize;

use crate::failure::Failure;

/// The object `send --output json` prints (field order is the documented one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub session_id: Option<String>,
    pub turn_id: Option<String>,
    pub stop_reason: &'static str,
    pub text: String,
    pub usage: Usage,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

/// Accumulates the events of one turn into a [`Summary`].
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    usage: Usage,
    text: String,
    last_error: Option<ErrorInfo>,
}

impl Default for SummaryBuilder {
    fn default() -> Self {
        SummaryBuilder {
            // Zero known cost, so that one unknown cost makes the sum unknown.
            usage: Usage {
                cost_usd: Some(0.0),
                ..Usage::default()
            },
            text: String::new(),
            last_error: None,
        }
    }
}

impl SummaryBuilder {
    /// Takes one event of the turn into account.
    pub fn observe(&mut self, ev: &Event) {
        match &ev.payload {
            EventPayload::AssistantMessage { content, .. } if ev.agent_id == ev.session_id => {
                self.text = content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
            }
            EventPayload::Usage { usage, .. } => self.usage.add(usage),
            EventPayload::Error { error } => self.last_error = Some(error.clone()),
            _ => {}
        }
    }

    /// The summary of a turn that completed. A failed turn without an error of its own
    /// reports the last `error` event it had.
    pub fn completed(
        &self,
        session_id: &str,
        turn_id: &str,
        stop: StopReason,
        error: Option<ErrorInfo>,
    ) -> Summary {
        let error = match (stop, error) {
            (_, Some(e)) => Some(e),
            (StopReason::Error, None) => Some(self.last_error.clone().unwrap_or(ErrorInfo {
                kind: "error".into(),
                message: "the turn failed".into(),
            })),
            _ => None,
        };
        Summary {
            session_id: Some(session_id.to_owned()),
            turn_id: Some(turn_id.to_owned()),
            stop_reason: stop.as_str(),
            text: self.text.clone(),
            usage: self.usage,
            error,
        }
    }

    /// The summary when the CLI could not see the turn to its end.
    pub fn failed(
        &self,
        session_id: Option<&str>,
        turn_id: Option<&str>,
        failure: &Failure,
    ) -> Summary {
        Summary {
            session_id: session_id.map(str::to_owned),
            turn_id: turn_id.map(str::to_owned),
            stop_reason: StopReason::Error.as_str(),
            text: self.text.clone(),
            usage: self.usage,
            error: Some(ErrorInfo {
                kind: failure.kind.as_str().into(),
                message: failure.message.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, agent: &str, payload: EventPayload) -> Event {
        Event {
            seq,
            ts: "2026-11-30T10:00:00.000Z".into(),
            session_id: "S".into(),
            agent_id: agent.into(),
            payload,
        }
    }

    fn usage(input: u64, output: u64, cost: Option<f64>) -> EventPayload {
        EventPayload::Usage {
            message_id: "M".into(),
            model: "m".into(),
            usage: Usage {
                input_tokens: input,
                output_tokens: output,
                cache_read_tokens: 1,
                cache_write_tokens: 2,
                cost_usd: cost,
            },
        }
    }

    fn message(id: &str, blocks: Vec<ContentBlock>) -> EventPayload {
        EventPayload::AssistantMessage {
            message_id: id.into(),
            content: blocks,
        }
    }

    #[test]
    fn final_message_text_and_summed_usage() {
        let mut b = SummaryBuilder::default();
        b.observe(&ev(
            1,
            "S",
            message(
                "M1",
                vec![
                    ContentBlock::text("Let me look."),
                    ContentBlock::ToolUse {
                        id: "C".into(),
                        name: "Read".into(),
                        input: json!({}),
                    },
                ],
            ),
        ));
        b.observe(&ev(2, "S", usage(10, 5, Some(0.25))));
        b.observe(&ev(
            3,
            "S",
            message(
                "M2",
                vec![ContentBlock::text("Done: "), ContentBlock::text("2 fixes.")],
            ),
        ));
        // A sub-agent's message is not the answer.
        b.observe(&ev(4, "A", message("M3", vec![ContentBlock::text("sub")])));
        b.observe(&ev(5, "S", usage(20, 7, Some(0.5))));
        let s = b.completed("S", "T", StopReason::EndTurn, None);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v,
            json!({
                "session_id": "S", "turn_id": "T", "stop_reason": "end_turn",
                "text": "Done: 2 fixes.",
                "usage": {"input_tokens": 30, "output_tokens": 12, "cache_read_tokens": 2,
                          "cache_write_tokens": 4, "cost_usd": 0.75}
            })
        );
        let line = serde_json::to_string(&s).unwrap();
        assert!(
            line.starts_with(r#"{"session_id":"S","turn_id":"T","stop_reason":"end_turn","text":"#)
        );
    }

    #[test]
    fn one_unknown_cost_makes_the_cost_null() {
        let mut b = SummaryBuilder::default();
        b.observe(&ev(1, "S", usage(1, 1, Some(0.1))));
        b.observe(&ev(2, "S", usage(1, 1, None)));
        b.observe(&ev(3, "S", usage(1, 1, Some(0.1))));
        let v = serde_json::to_value(b.completed("S", "T", StopReason::EndTurn, None)).unwrap();
        assert_eq!(v["usage"]["cost_usd"], serde_json::Value::Null);
        assert_eq!(v["usage"]["input_tokens"], 3);
    }

    #[test]
    fn errors_are_reported_as_objects() {
        let mut b = SummaryBuilder::default();
        b.observe(&ev(
            1,
            "S",
            EventPayload::Error {
                error: ErrorInfo {
                    kind: "rate_limited".into(),
                    message: "slow down".into(),
                },
            },
        ));
        let v = serde_json::to_value(b.completed("S", "T", StopReason::Error, None)).unwrap();
        assert_eq!(v["stop_reason"], "error");
        assert_eq!(
            v["error"],
            json!({"kind": "rate_limited", "message": "slow down"})
        );

        let f = Failure::new("config", "set ANTHROPIC_API_KEY");
        let v =
            serde_json::to_value(SummaryBuilder::default().failed(Some("S"), None, &f)).unwrap();
        assert_eq!(
            v,
            json!({
                "session_id": "S", "turn_id": null, "stop_reason": "error", "text": "",
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
                          "cache_write_tokens": 0, "cost_usd": 0.0},
                "error": {"kind": "config", "message": "set ANTHROPIC_API_KEY"}
            })
        );
    }

    #[test]
    fn a_clean_stop_has_no_error() {
        let v = serde_json::to_value(SummaryBuilder::default().completed(
            "S",
            "T",
            StopReason::MaxTurns,
            None,
        ))
        .unwrap();
        assert!(v.get("error").is_none());
        assert_eq!(v["stop_reason"], "max_turns");
    }
}
