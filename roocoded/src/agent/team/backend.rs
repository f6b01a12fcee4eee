//! Where a teammate is shown (`teams.backend`, or the `Agent` call's `backend`): always
//! a daemon-owned agent; with `tmux`, also a pane running `roocode-tui --session
//! <teammate>`. `auto` opens panes when the client that started the lead's turn runs
//! inside tmux (clients forward `TMUX` and `TMUX_PANE`).
//!
//! A pane that cannot be opened changes nothing for the teammate: the failure is logged,
//! shown on the lead's stream as an `error` event, and the member is recorded as
//! `in-process`, which is what it is.

use roocode_protocol::event::{ErrorInfo, ErrorKind, EventPayload};
use roocode_protocol::session::ClientEnv;

use super::tmux::{PaneError, PaneSpec};
use crate::agent::Engine;
use crate::config::{Config, TeamBackend};
use crate::store::AgentRow;

pub const IN_PROCESS: &str = "in-process";
pub const TMUX: &str = "tmux";

/// The backend of a new teammate: `requested` (the `Agent` call's), else the
/// configuration's, with `auto` decided by the lead's client's environment.
pub fn choose(
    requested: Option<&str>,
    config: &Config,
    env: &ClientEnv,
) -> Result<&'static str, String> {
    let backend = match requested {
        None => config.teams_settings().backend,
        Some("auto") => TeamBackend::Auto,
        Some("in-process") => TeamBackend::InProcess,
        Some("tmux") => TeamBackend::Tmux,
        Some(other) => {
            return Err(format!(
                "unknown backend `{other}`: the backends are in-process, tmux and auto"
            ));
        }
    };
    let in_tmux = env.get("TMUX").is_some_and(|v| !v.is_empty());
    Ok(match backend {
        TeamBackend::InProcess => IN_PROCESS,
        TeamBackend::Tmux => TMUX,
        TeamBackend::Auto if in_tmux => TMUX,
        TeamBackend::Auto => IN_PROCESS,
    })
}

impl Engine {
    /// Opens the tmux pane `pane` describes for the teammate `row` (just joined); never
    /// fails the teammate.
    pub(super) async fn show_in_pane(&self, row: &AgentRow, pane: &Result<PaneSpec, PaneError>) {
        let opened = match pane {
            Ok(spec) => spec.open(&row.id).await,
            Err(e) => Err(e.clone()),
        };
        let e = match opened {
            Ok(pane) => {
                tracing::info!(agent = %row.id, name = %row.name, %pane, "teammate shown in a tmux pane");
                return;
            }
            Err(e) => e,
        };
        tracing::warn!(agent = %row.id, name = %row.name, "cannot open the teammate's tmux pane: {e}");
        if let Err(e) = self.store.set_member_backend(&row.id, IN_PROCESS).await {
            tracing::error!(agent = %row.id, "cannot record the teammate's backend: {e}");
        }
        let message = format!(
            "Teammate \"{}\" runs in-process only, without a tmux pane: {e}. Watch it with `roocode-tui --session {}`.",
            row.name, row.id
        );
        let shown = EventPayload::Error {
            error: ErrorInfo {
                kind: ErrorKind::Config,
                message,
            },
        };
        if let Err(e) = self.events.append(&row.parent_id, &row.id, shown).await {
            tracing::error!(agent = %row.id, "cannot record the pane failure: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use roocode_protocol::Mode;
    use roocode_protocol::agents::AgentState;
    use roocode_protocol::paths::Paths;
    use roocode_protocol::session::SessionKind;

    use super::*;
    use crate::store::{NewAgent, NewMember, NewSession, Store};

    fn session(id: &str, parent: Option<&str>, kind: SessionKind) -> NewSession {
        NewSession {
            id: id.into(),
            parent_session_id: parent.map(String::from),
            kind,
            title: "t".into(),
            cwd: "/p".into(),
            root: "/p".into(),
            model: "anthropic/m".into(),
            mode: Mode::Default,
        }
    }

    #[tokio::test]
    async fn a_pane_that_cannot_open_leaves_an_in_process_member_and_tells_the_lead() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().display().to_string();
        let paths = Paths::resolve(|n| (n == "ROOCODE_HOME").then(|| home.clone())).unwrap();
        let engine = Arc::new(Engine::new(Store::memory().await.unwrap(), paths));
        let store = engine.store();
        store
            .insert_session(&session("lead", None, SessionKind::Main))
            .await
            .unwrap();
        let row = store
            .insert_agent(&NewAgent {
                session: session("mate", Some("lead"), SessionKind::Teammate),
                name: "builder".into(),
                agent_type: "general-purpose".into(),
                description: String::new(),
                background: true,
                spec: "{}".into(),
                state: AgentState::Queued,
            })
            .await
            .unwrap();
        store
            .create_team("t", "alpha", "lead", "", "none")
            .await
            .unwrap();
        store
            .add_member(&NewMember {
                team_id: "t",
                name: "builder",
                agent_id: "mate",
                agent_type: "general-purpose",
                model: "anthropic/m",
                worktree: None,
                backend: TMUX,
                plan_mode_required: false,
            })
            .await
            .unwrap();

        engine.show_in_pane(&row, &Err(PaneError::NotInTmux)).await;

        let member = store.member("mate").await.unwrap().unwrap();
        assert_eq!(member.backend, IN_PROCESS);
        let events = store.events_after("lead", 0, 10).await.unwrap();
        let told = events
            .iter()
            .find_map(|e| {
                let EventPayload::Error { error } = &e.payload else {
                    return None;
                };
                Some(error.message.clone())
            })
            .unwrap();
        assert!(
            told.contains("\"builder\" runs in-process only")
                && told.contains("not inside tmux")
                && told.contains("roocode-tui --session mate"),
            "{told}"
        );
    }

    #[test]
    fn auto_opens_panes_only_for_a_client_inside_tmux() {
        let config = Config::default();
        let outside = ClientEnv::default();
        let mut inside = ClientEnv::default();
        inside
            .vars
            .insert("TMUX".into(), "/tmp/tmux-1000/default,1,0".into());
        assert_eq!(choose(None, &config, &outside), Ok(IN_PROCESS));
        assert_eq!(choose(None, &config, &inside), Ok(TMUX));
        assert_eq!(choose(Some("in-process"), &config, &inside), Ok(IN_PROCESS));
        assert_eq!(choose(Some("tmux"), &config, &outside), Ok(TMUX));
        assert!(choose(Some("screen"), &config, &inside).is_err());
    }
}
