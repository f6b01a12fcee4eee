//! Where a teammate is shown (`teams.backend`, or the `Agent` call's `backend`): always
//! a daemon-owned agent; with `tmux`, also a pane running `roocode-tui --session
//! <teammate>`. `auto` opens panes when the client that started the lead's turn runs
//! inside tmux (clients forward `TMUX` and `TMUX_PANE`).

use roocode_protocol::session::ClientEnv;

use crate::config::{Config, TeamBackend};

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

#[cfg(test)]
mod tests {
    use super::*;

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
