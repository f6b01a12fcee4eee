//! [`Server`]: one running MCP server, kept up by its supervisor task. The task
//! connects (within the server's startup timeout), lists its tools and its prompts,
//! watches for `notifications/tools/list_changed` and
//! `notifications/prompts/list_changed` (listing them again) and for the connection's
//! end; a server that
//! crashes or fails to start is started again after a backoff that doubles from
//! `ROOCODE_MCP_RESTART_MS` (default 1000 ms) up to a minute, and after
//! [`MAX_FAILURES`] failures in a row it stays failed until a session asks for it again
//! ([`Server::wake`]). Calls in flight when it crashes end with an error saying so.
//!
//! Whoever needs the server watches its [`State`]: starting, connected with its
//! tools (and a generation that grows whenever they change) and prompts, or failed with the reason
//! (kept as the last error while it starts again).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::client::{McpClient, McpTool};
use super::config::Launch;
use super::prompts::McpPrompt;

/// Failures in a row after which a server is left failed until asked for again.
pub const MAX_FAILURES: u32 = 5;
/// Longest wait between two starts.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Where a server is.
#[derive(Clone)]
pub enum State {
    Starting,
    Connected {
        client: Arc<McpClient>,
        tools: Arc<[McpTool]>,
        /// Its prompts (none when its capabilities announce none, or listing them
        /// failed: a server is not failed for its prompts).
        prompts: Arc<[McpPrompt]>,
        instructions: Option<String>,
    },
    Failed {
        reason: String,
        /// It will be started again by itself (false: only when asked for again).
        retrying: bool,
    },
}

impl State {
    pub fn label(&self) -> &'static str {
        match self {
            State::Starting => "starting",
            State::Connected { .. } => "connected",
            State::Failed { .. } => "failed",
        }
    }
}

/// What the supervisor publishes: the state and how often the tools changed.
#[derive(Clone)]
pub struct Snapshot {
    pub state: State,
    /// Grows with every new connection and every change of its tools.
    pub generation: u64,
    /// The tools it had when last connected (kept while it restarts, so they do not
    /// vanish from the model's tool array; a call then waits for it or fails).
    pub tools: Arc<[McpTool]>,
    pub instructions: Option<String>,
    /// Why it last failed (kept while it starts again and after it reconnects).
    pub last_error: Option<String>,
}

/// One server and its supervisor.
pub struct Server {
    /// The name it was first configured under (for the log).
    name: String,
    launch: Launch,
    startup_timeout: Duration,
    restart_base: Duration,
    snapshot: watch::Sender<Snapshot>,
    /// Asks a supervisor that gave up to try again.
    wake: Notify,
    stop: CancellationToken,
}

impl Server {
    /// A server that is not started yet; [`Server::spawn`] starts its supervisor.
    pub fn new(
        name: &str,
        launch: Launch,
        startup_timeout: Duration,
        restart_base: Duration,
        stop: CancellationToken,
    ) -> Arc<Self> {
        let (snapshot, _) = watch::channel(Snapshot {
            state: State::Starting,
            generation: 0,
            tools: Arc::from(Vec::new()),
            instructions: None,
            last_error: None,
        });
        Arc::new(Server {
            name: name.to_string(),
            launch,
            startup_timeout,
            restart_base,
            snapshot,
            wake: Notify::new(),
            stop,
        })
    }

    /// Starts the supervisor task.
    pub fn spawn(self: &Arc<Self>) {
        let server = Arc::clone(self);
        tokio::spawn(async move { server.supervise().await });
    }

    /// The state now.
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot.borrow().clone()
    }

    /// Follows the state.
    pub fn watch(&self) -> watch::Receiver<Snapshot> {
        self.snapshot.subscribe()
    }

    /// A session wants it: a server that gave up starts again.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Waits at most `wait` for the server to be connected, unless it gave up.
    pub async fn connected(&self, wait: Duration) -> Snapshot {
        let mut rx = self.watch();
        let _ = tokio::time::timeout(
            wait,
            rx.wait_for(|s| {
                matches!(
                    s.state,
                    State::Connected { .. }
                        | State::Failed {
                            retrying: false,
                            ..
                        }
                )
            }),
        )
        .await;
        self.snapshot()
    }

    /// Waits at most `wait` for the server to leave `Starting`.
    pub async fn settled(&self, wait: Duration) -> Snapshot {
        let mut rx = self.watch();
        let _ =
            tokio::time::timeout(wait, rx.wait_for(|s| !matches!(s.state, State::Starting))).await;
        self.snapshot()
    }

    fn publish(&self, state: State, new_tools: bool) {
        self.snapshot.send_modify(|s| {
            if let State::Connected {
                tools,
                instructions,
                ..
            } = &state
            {
                s.tools = Arc::clone(tools);
                s.instructions = instructions.clone();
            }
            if let State::Failed { reason, .. } = &state {
                s.last_error = Some(reason.clone());
            }
            s.state = state;
            if new_tools {
                s.generation += 1;
            }
        });
    }

    async fn supervise(self: Arc<Self>) {
        let mut failures = 0u32;
        loop {
            self.publish(State::Starting, false);
            let reason = tokio::select! {
                () = self.stop.cancelled() => return,
                reason = self.run_once() => reason,
            };
            let connected = reason.is_ok();
            let reason = reason.unwrap_or_else(|r| r);
            failures = if connected { 1 } else { failures + 1 };
            let retrying = failures < MAX_FAILURES;
            tracing::warn!(server = %self.name, failures, retrying, "mcp server down: {reason}");
            self.publish(State::Failed { reason, retrying }, false);
            if retrying {
                let backoff = self
                    .restart_base
                    .saturating_mul(1 << (failures - 1).min(16))
                    .min(MAX_BACKOFF);
                tokio::select! {
                    () = self.stop.cancelled() => return,
                    () = tokio::time::sleep(backoff) => {}
                    () = self.wake.notified() => {}
                }
            } else {
                tokio::select! {
                    () = self.stop.cancelled() => return,
                    () = self.wake.notified() => failures = 0,
                }
            }
        }
    }

    /// One connection, from start to end: `Ok(why it ended)` after it was up,
    /// `Err(why it never came up)`.
    async fn run_once(&self) -> Result<String, String> {
        let (client, connection) =
            McpClient::connect(&self.name, &self.launch, self.startup_timeout)
                .await
                .map_err(|e| e.to_string())?;
        let client = Arc::new(client);
        let instructions = client.instructions();
        // A server that answers its handshake but never its tools/list is as good as
        // one that never started: the listing gets the startup timeout too.
        let list = || async {
            match tokio::time::timeout(self.startup_timeout, client.tools()).await {
                Ok(listed) => listed.map_err(|e| e.to_string()),
                Err(_) => Err(format!(
                    "the server did not list its tools within {} s",
                    self.startup_timeout.as_secs_f64()
                )),
            }
        };
        let connected = |tools: &Arc<[McpTool]>, prompts: &Arc<[McpPrompt]>| State::Connected {
            client: Arc::clone(&client),
            tools: Arc::clone(tools),
            prompts: Arc::clone(prompts),
            instructions: instructions.clone(),
        };
        let mut tools: Arc<[McpTool]> = list().await?.into();
        let mut prompts: Arc<[McpPrompt]> = match self.list_prompts(&client).await {
            Ok(prompts) => prompts.into(),
            Err(e) => {
                tracing::warn!(server = %self.name, "cannot list the prompts: {e}");
                Arc::from(Vec::new())
            }
        };
        tracing::info!(server = %self.name, tools = tools.len(), prompts = prompts.len(), "mcp server connected");
        self.publish(connected(&tools, &prompts), true);
        let closed = connection.closed();
        tokio::pin!(closed);
        loop {
            tokio::select! {
                how = &mut closed => {
                    return Ok(format!("the server crashed or exited ({how})"));
                }
                () = client.tools_changed() => match list().await {
                    Ok(listed) => {
                        tracing::info!(server = %self.name, tools = listed.len(), "mcp server's tools changed");
                        tools = listed.into();
                        self.publish(connected(&tools, &prompts), true);
                    }
                    Err(e) => tracing::warn!(server = %self.name, "cannot list the changed tools: {e}"),
                },
                () = client.prompts_changed() => match self.list_prompts(&client).await {
                    Ok(listed) => {
                        tracing::info!(server = %self.name, prompts = listed.len(), "mcp server's prompts changed");
                        prompts = listed.into();
                        // The tools did not change: the generation stays.
                        self.publish(connected(&tools, &prompts), false);
                    }
                    Err(e) => tracing::warn!(server = %self.name, "cannot list the changed prompts: {e}"),
                },
            }
        }
    }

    /// The server's prompts, within its startup timeout.
    async fn list_prompts(&self, client: &McpClient) -> Result<Vec<McpPrompt>, String> {
        match tokio::time::timeout(self.startup_timeout, client.prompts()).await {
            Ok(listed) => listed.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "the server did not list its prompts within {} s",
                self.startup_timeout.as_secs_f64()
            )),
        }
    }
}
