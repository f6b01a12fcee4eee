//! One tool call made by the daemon for the user outside any turn: a prompt command's
//! `@path` (through `Read`) and `` !`cmd` `` (through `Bash`) inlined into its text
//! before the message is queued. The call goes through the same permission gate as the
//! model's — validation, the five layers, the OS sandbox of commands — with the
//! command's pre-approved rules; what the gate would ask a human about is not run
//! (nobody is asked in the middle of typing a command) and says which rule would
//! allow it. Nothing of it reaches the event log or the model's context except the
//! text it produces. Its commands run in a shell of their own, which starts in the
//! session's directory: a `cd` in a command's text never moves the agent's shell.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::settings::{Sources, TurnSettings};
use super::turn_config::TurnConfig;
use super::{AgentError, Engine};
use crate::memory::MemoryDirs;
use crate::permission::Decision;
use crate::store::SessionRow;
use crate::tools::turn_scope::{Combined, TurnScope, combine};
use crate::tools::{ShellState, ToolContext};
use roocode_protocol::session::ClientEnv;

/// Runs inline calls for one command, with the settings its session has now.
pub struct InlineCalls {
    engine: Arc<Engine>,
    row: SessionRow,
    env: ClientEnv,
    live: TurnConfig,
    scope: Combined,
    /// The command's own shell (its directory, scratch files), gone with it.
    shell: Arc<ShellState>,
}

impl InlineCalls {
    /// The calls of a command run in `row`'s session with `scope` (its pre-approved
    /// rules); a broken config file is the error.
    pub fn new(
        engine: &Arc<Engine>,
        row: &SessionRow,
        env: &ClientEnv,
        scope: &TurnScope,
    ) -> Result<Self, AgentError> {
        let live = TurnConfig::load(&engine.paths.user_dir, std::path::Path::new(&row.root))
            .map_err(|e| AgentError::Config(e.to_string()))?;
        Ok(Self {
            engine: Arc::clone(engine),
            row: row.clone(),
            env: env.clone(),
            live,
            scope: combine(std::slice::from_ref(scope)),
            shell: Arc::new(ShellState::new()),
        })
    }

    /// Calls `tool` with `input`; the text of its result, or why it was not run.
    pub async fn call(&self, tool: &str, input: Value) -> Result<String, String> {
        let engine = &self.engine;
        let rt = engine
            .runtime(&self.row.id)
            .await
            .map_err(|e| e.to_string())?;
        let sources = Sources {
            env: self.env.clone(),
            tools: engine.session_tools(&self.row.id),
            deferral: None,
            plan_file: engine.plan_file(&self.row.id),
            user_dir: &engine.paths.user_dir,
            http: &engine.http,
            scope: self.scope.clone(),
            hooks: None,
        };
        let settings =
            TurnSettings::main(self.row.clone(), &self.live, sources).map_err(|e| e.to_string())?;
        let memory_dirs =
            MemoryDirs::new(&engine.paths.user_dir, std::path::Path::new(&self.row.root));
        let cancel = CancellationToken::new();
        let ctx = ToolContext {
            shell: Arc::clone(&self.shell),
            ..super::executor::base_context(
                engine,
                &rt,
                &settings,
                "command",
                &memory_dirs,
                &cancel,
            )
        };
        let prepared = settings
            .agent
            .tools
            .prepare(tool, &input, &ctx)
            .map_err(|e| e.to_string())?;
        let gate = settings.gate();
        let facts = prepared.call(&input);
        match ctx.check(&gate, &facts) {
            Decision::Allow => {}
            Decision::Deny { reason } => return Err(format!("denied: {reason}")),
            Decision::Ask { reason } => {
                return Err(format!(
                    "needs approval ({reason}); pre-approve it in the command's `allowed-tools` (e.g. `{tool}(...)`) or with an allow rule"
                ));
            }
        }
        let out = prepared.run(&ctx).await.map_err(|e| e.to_string())?;
        let text = crate::tools::display_text(&out.content, &out.images);
        if out.is_error { Err(text) } else { Ok(text) }
    }
}
