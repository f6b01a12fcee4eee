//! `agent.*`: sub-agents — `agent.list|get|stop|background`, and `agent.definitions`:
//! the definitions that apply to the caller's project and user
//! (`crate::agent::definitions`), each with what will not apply (tools RooCode does not
//! have, Claude Code keys it ignores), and the files that could not be loaded, each
//! also logged.

use std::path::{Path, PathBuf};

use roocode_protocol::agents::{
    AgentDefinitionInfo, AgentDefinitions, AgentInfo, DefinitionProblem,
};
use roocode_protocol::api::{AgentApiServer, RpcResult};
use roocode_protocol::error::RpcErrorCode;
use roocode_protocol::session::ClientEnv;

use super::Handler;
use super::errors::{error_object, to_rpc};
use crate::agent::definitions::{self, Definition, ModelChoice, ModelTier};

#[jsonrpsee::core::async_trait]
impl AgentApiServer for Handler {
    async fn list(&self, session_id: Option<String>) -> RpcResult<Vec<AgentInfo>> {
        let engine = &self.0.engine;
        engine
            .agent_infos(session_id.as_deref())
            .await
            .map_err(to_rpc)
    }

    async fn get(&self, agent_id: String) -> RpcResult<AgentInfo> {
        self.0.engine.agent_info(&agent_id).await.map_err(to_rpc)
    }

    async fn stop(&self, agent_id: String) -> RpcResult<bool> {
        let engine = &self.0.engine;
        let info = engine.agent_info(&agent_id).await.map_err(to_rpc)?;
        engine.stop_agent(&info.id).await.map_err(to_rpc)
    }

    async fn background(&self, agent_id: String) -> RpcResult<bool> {
        let engine = &self.0.engine;
        let info = engine.agent_info(&agent_id).await.map_err(to_rpc)?;
        engine.background_agent(&info.id).await.map_err(to_rpc)
    }

    async fn definitions(&self, cwd: String, env: ClientEnv) -> RpcResult<AgentDefinitions> {
        let cwd = PathBuf::from(cwd);
        if !cwd.is_absolute() || !cwd.is_dir() {
            let message = format!("{} is not an absolute path to a directory", cwd.display());
            return Err(error_object(RpcErrorCode::InvalidParams, message, None));
        }
        let Some(home) = env.get("HOME").map(PathBuf::from) else {
            let message = "the client sent no HOME: user definitions cannot be found";
            return Err(error_object(RpcErrorCode::InvalidParams, message, None));
        };
        let user = crate::project::UserDirs {
            roocode: self.0.engine.paths().user_dir.clone(),
            home,
        };
        let known: Vec<String> = self
            .0
            .engine
            .tools()
            .names()
            .into_iter()
            .map(str::to_string)
            .collect();
        let loaded = tokio::task::spawn_blocking(move || {
            definitions::load(&user, &crate::project::root(&cwd))
        })
        .await
        .map_err(|e| error_object(RpcErrorCode::Internal, format!("loading failed: {e}"), None))?;
        for problem in &loaded.problems {
            tracing::warn!("agent definition not loaded: {problem}");
        }
        Ok(AgentDefinitions {
            definitions: loaded.definitions.iter().map(|d| info(d, &known)).collect(),
            problems: loaded
                .problems
                .iter()
                .map(|p| DefinitionProblem {
                    file: shown(&p.file),
                    line: p.line.map(|l| l as u64),
                    message: p.message.clone(),
                })
                .collect(),
        })
    }
}

/// A definition as clients see it; `known` (the daemon's tool names) decides which of
/// the tools it names are warned about as missing.
fn info(d: &Definition, known: &[String]) -> AgentDefinitionInfo {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut warnings = definitions::tool_warnings(d, &known);
    warnings.extend(d.warnings());
    AgentDefinitionInfo {
        name: d.name.clone(),
        description: d.description.clone(),
        source: d.source.as_str().to_string(),
        path: shown(&d.path),
        tools: d.tools.clone(),
        disallowed_tools: d.disallowed_tools.clone(),
        model: match &d.model {
            ModelChoice::Inherit => "inherit".to_string(),
            ModelChoice::Tier(ModelTier::Sonnet) => "sonnet".to_string(),
            ModelChoice::Tier(ModelTier::Opus) => "opus".to_string(),
            ModelChoice::Tier(ModelTier::Haiku) => "haiku".to_string(),
            ModelChoice::Spec(spec) => spec.clone(),
        },
        background: d.background,
        warnings,
        overrides: d.overrides.iter().map(|p| shown(p)).collect(),
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}
