//! The MCP servers of a project as the user looks at them: `mcp.list`, `mcp.get` and
//! `/mcp` configure them as a session started by the asking client would (its
//! environment expands the `${VAR}`s), start those that may run and wait for them up
//! to `mcp.startup_wait_ms`, so the states shown are real; `mcp.approve` records the
//! user's approval of a project's server as it is now (it starts at the next turn).

use std::path::{Path, PathBuf};

use roocode_protocol::mcp::{McpApproval, McpServerInfo};
use roocode_protocol::session::ClientEnv;

use super::{AgentError, Engine};
use crate::mcp::config::{self, ServerConfig};
use crate::mcp::session::{self, Configured};
use crate::mcp::status;
use crate::store::SessionRow;

impl Engine {
    /// Every server of `cwd`'s project, by name, for a client with `env`.
    pub async fn mcp_list(
        &self,
        cwd: &str,
        env: &ClientEnv,
    ) -> Result<Vec<McpServerInfo>, AgentError> {
        let root = project_root(cwd)?;
        let servers = self.mcp_started(&root, env).await?;
        Ok(servers.iter().map(|c| status::info(c, false)).collect())
    }

    /// One server of `cwd`'s project, with its tools.
    pub async fn mcp_get(
        &self,
        cwd: &str,
        env: &ClientEnv,
        name: &str,
    ) -> Result<McpServerInfo, AgentError> {
        let root = project_root(cwd)?;
        let configs = self.mcp_configs(&root)?;
        let config = find(configs, name, &root)?;
        let servers = session::configure(&self.mcp, vec![config], &root, env);
        session::wait_started(&servers, self.config(&root)?.mcp.startup_wait()).await;
        match servers.first() {
            Some(c) => Ok(status::info(c, true)),
            None => Err(AgentError::Invalid(format!("no MCP server `{name}`"))),
        }
    }

    /// Approves the project server `name` of `cwd`'s project as it is configured now.
    /// `env` is not needed to approve (what is approved is the config as written); it
    /// is taken for symmetry with the other calls.
    pub async fn mcp_approve(
        &self,
        cwd: &str,
        _env: &ClientEnv,
        name: &str,
    ) -> Result<McpApproval, AgentError> {
        let root = project_root(cwd)?;
        let config = find(self.mcp_configs(&root)?, name, &root)?;
        if !config.needs_approval() {
            return Err(AgentError::Invalid(format!(
                "the MCP server `{name}` is a {} server ({}): it needs no approval, only a project's servers (.mcp.json, .roocode/config.yaml) do",
                config.scope.as_str(),
                config.source.display()
            )));
        }
        let approvals = self.mcp.approvals();
        approvals.approve(&root, &config).map_err(|e| {
            AgentError::Config(format!(
                "cannot record the approval of `{name}`: {e} (fix or remove {})",
                self.paths.data_dir.join("mcp-approvals.json").display()
            ))
        })?;
        tracing::info!(server = %name, root = %root.display(), "MCP server approved");
        Ok(McpApproval {
            name: config.name.clone(),
            project: root.display().to_string(),
            source: config.source.display().to_string(),
            runs: status::launch_info(&config),
        })
    }

    /// `/mcp`: the servers of the session's project, for the environment its client
    /// sent last (the daemon's own before any did, as a turn would use).
    pub async fn mcp_session_list(
        &self,
        row: &SessionRow,
    ) -> Result<Vec<McpServerInfo>, AgentError> {
        let env = match self.runtimes.get(&row.id) {
            Some(rt) => self.env_of(&rt).await,
            None => ClientEnv::default(),
        };
        let env = if env.vars.is_empty() {
            ClientEnv::capture()
        } else {
            env
        };
        let servers = self.mcp_started(Path::new(&row.root), &env).await?;
        Ok(servers.iter().map(|c| status::info(c, false)).collect())
    }

    /// The project's servers configured for `env`, those that may run started and
    /// waited for.
    pub(super) async fn mcp_started(
        &self,
        root: &Path,
        env: &ClientEnv,
    ) -> Result<Vec<Configured>, AgentError> {
        let configs = self.mcp_configs(root)?;
        let wait = self.config(root)?.mcp.startup_wait();
        let servers = session::configure(&self.mcp, configs, root, env);
        session::wait_started(&servers, wait).await;
        Ok(servers)
    }

    pub(super) fn mcp_configs(&self, root: &Path) -> Result<Vec<ServerConfig>, AgentError> {
        config::load(&self.paths.user_dir, root).map_err(|e| AgentError::Config(e.to_string()))
    }
}

/// The project root of a client's `cwd`, which must be an existing absolute directory.
fn project_root(cwd: &str) -> Result<PathBuf, AgentError> {
    let dir = Path::new(cwd);
    if !dir.is_absolute() || !dir.is_dir() {
        return Err(AgentError::Invalid(format!(
            "`{cwd}` is not an existing absolute directory"
        )));
    }
    Ok(crate::project::root(dir))
}

/// The server `name` among `configs`, or an error listing the known ones.
pub(super) fn find(
    configs: Vec<ServerConfig>,
    name: &str,
    root: &Path,
) -> Result<ServerConfig, AgentError> {
    let known: Vec<String> = configs.iter().map(|c| c.name.clone()).collect();
    configs
        .into_iter()
        .find(|c| c.name == name)
        .ok_or_else(|| AgentError::Invalid(unknown(name, &known, root)))
}

fn unknown(name: &str, known: &[String], root: &Path) -> String {
    if known.is_empty() {
        format!(
            "no MCP server `{name}`: the project at {} configures none (add one with `roocode-cli mcp add NAME -- COMMAND`)",
            root.display()
        )
    } else {
        format!(
            "no MCP server `{name}` in the project at {}; it has: {} (`roocode-cli mcp list` shows them)",
            root.display(),
            known.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roocode_protocol::mcp::McpServerState;

    async fn engine() -> (tempfile::TempDir, Engine) {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().display().to_string();
        let paths = roocode_protocol::paths::Paths::resolve(|name| {
            (name == "ROOCODE_HOME").then(|| dir.clone())
        })
        .unwrap();
        let store = crate::store::Store::open(&paths.database).await.unwrap();
        (home, Engine::new(store, paths))
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[tokio::test]
    async fn a_project_server_waits_for_its_approval_and_others_need_none() {
        let (_home, engine) = engine().await;
        let project = tempfile::tempdir().unwrap();
        let p = project.path().canonicalize().unwrap();
        std::fs::create_dir(p.join(".git")).unwrap();
        write(
            &p.join(".mcp.json"),
            r#"{"mcpServers": {"shared": {"command": "/nonexistent/mcp-server", "env": {"T": "secret"}}}}"#,
        );
        write(
            &p.join(".roocode/config.local.yaml"),
            "mcp_servers:\n  mine: {command: /nonexistent/other, enabled: false}\n",
        );
        let cwd = p.display().to_string();
        let env = ClientEnv::default();
        let list = engine.mcp_list(&cwd, &env).await.unwrap();
        let names: Vec<&str> = list.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["mine", "shared"]);
        assert_eq!(list[0].state, McpServerState::Disabled);
        assert!(matches!(
            &list[1].state,
            McpServerState::NeedsApproval { approve_command } if approve_command == "roocode-cli mcp approve shared"
        ));

        let err = engine.mcp_approve(&cwd, &env, "mine").await.unwrap_err();
        assert!(err.to_string().contains("needs no approval"), "{err}");
        let err = engine.mcp_approve(&cwd, &env, "nope").await.unwrap_err();
        assert!(err.to_string().contains("mine, shared"), "{err}");
        let err = engine.mcp_get(&cwd, &env, "nope").await.unwrap_err();
        assert!(err.to_string().contains("mine, shared"), "{err}");

        let approved = engine.mcp_approve(&cwd, &env, "shared").await.unwrap();
        assert_eq!(
            approved.runs.command.as_deref(),
            Some("/nonexistent/mcp-server")
        );
        assert_eq!(approved.runs.env_names, ["T"]);
        assert_eq!(approved.project, cwd);
        // Approved, it starts: and fails, saying what it could not run.
        let shown = engine.mcp_get(&cwd, &env, "shared").await.unwrap();
        match &shown.state {
            McpServerState::Failed { reason, .. } => {
                assert!(reason.contains("/nonexistent/mcp-server"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        assert!(shown.last_error.is_some());
    }

    #[tokio::test]
    async fn a_cwd_that_is_no_directory_is_refused() {
        let (_home, engine) = engine().await;
        let env = ClientEnv::default();
        for cwd in ["relative/dir", "/nonexistent/dir"] {
            let err = engine.mcp_list(cwd, &env).await.unwrap_err();
            assert!(err.to_string().contains("absolute directory"), "{err}");
        }
    }
}
