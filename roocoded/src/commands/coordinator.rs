//! `/coordinator [on|off]`: shows or changes coordinator mode for the session. The
//! choice is stored with the session (it survives a daemon restart) and wins over the
//! project's `coordinator:` setting; it applies from the main agent's next model call,
//! where its tool set and system prompt are computed (`agent::main_tools`,
//! `agent::prompt::Role`).

use roocode_protocol::session::SessionKind;

use crate::agent::{AgentError, Engine, coordinating};
use crate::store::SessionRow;

/// The `/coordinator` reply for `args` on `row`'s session.
pub async fn run(engine: &Engine, row: &SessionRow, args: &str) -> Result<String, AgentError> {
    if row.kind != SessionKind::Main {
        return Err(AgentError::Invalid(
            "coordinator mode belongs to a team's lead: run /coordinator in the lead's session, not a teammate's or sub-agent's".into(),
        ));
    }
    let config = engine.config(std::path::Path::new(&row.root))?;
    let choice = match args.to_ascii_lowercase().as_str() {
        "" => {
            return Ok(status(
                coordinating(row, &config),
                row.coordinator.is_some(),
            ));
        }
        "on" => true,
        "off" => false,
        other => {
            return Err(AgentError::Invalid(format!(
                "`/coordinator {other}`: say /coordinator on, /coordinator off, or /coordinator alone to see the mode"
            )));
        }
    };
    engine
        .store()
        .set_session_coordinator(&row.id, Some(choice))
        .await?;
    Ok(changed(choice))
}

/// What `/coordinator` alone says.
fn status(on: bool, chosen: bool) -> String {
    let whose = if chosen {
        "chosen for this session with /coordinator"
    } else {
        "the project's `coordinator:` setting"
    };
    let state = if on { "on" } else { "off" };
    format!("Coordinator mode: {state} ({whose}). /coordinator on|off changes it for this session.")
}

/// What `/coordinator on|off` says.
fn changed(on: bool) -> String {
    if on {
        "Coordinator mode on: from the next model call the lead keeps only its team, task, message and agent tools (with TodoWrite, Memory and AskUserQuestion) and no code tool; it decomposes the work and its teammates do it. /coordinator off gives the tools back.".into()
    } else {
        "Coordinator mode off: from the next model call the lead has every tool again.".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replies_say_the_state_and_whose_choice_it_is() {
        assert!(status(true, true).starts_with("Coordinator mode: on (chosen"));
        assert!(status(false, false).contains("off (the project's"));
        assert!(changed(true).contains("no code tool"));
        assert!(changed(false).contains("every tool again"));
    }
}
