//! One connection to one MCP server, over the official SDK (`rmcp`): a stdio server
//! started as a child process (its stderr goes to the daemon log, line by line) or a
//! streamable HTTP server. It lists the server's tools, resources and prompts (the
//! latter in `client_prompts`) and calls them, each call bounded by a timeout; the
//! results come back as [`CallOutput`], the server's content converted faithfully
//! (text, images, embedded resources, resource links, structured content, `isError`).

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, ContentBlock, ProgressNotificationParam, ProgressToken,
    ReadResourceRequestParams, RequestId, ResourceContents, ServerResult,
};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::config::Launch;

/// Why talking to a server failed.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot start the server: {0}")]
    Start(String),
    #[error("the server did not finish starting within {} s", .0.as_secs_f64())]
    StartTimeout(Duration),
    #[error("the call took longer than {} s (tool_timeout_s) and was given up", .0.as_secs_f64())]
    CallTimeout(Duration),
    /// The connection is gone (a stdio server exited: it crashed or was stopped).
    #[error("the server's connection closed (it crashed or exited): {0}")]
    Closed(String),
    /// The server answered with a JSON-RPC error.
    #[error("the server refused the request: {0}")]
    Refused(String),
    #[error("cancelled by user")]
    Cancelled,
}

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub name: String,
    pub description: String,
    /// Its JSON Schema, as the server sent it.
    pub input_schema: Value,
    /// The server's claim that the tool only reads (a hint from a program that may
    /// lie: it never bypasses a permission rule).
    pub read_only_hint: Option<bool>,
}

/// A resource as the server lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResource {
    pub uri: String,
    pub name: String,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// One piece of a tool's result or a resource's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpContent {
    Text(String),
    /// Base64 data and its MIME type.
    Image {
        data: String,
        mime_type: String,
    },
    /// Audio: kept as data, shown to the model as a note (no provider takes it).
    Audio {
        data: String,
        mime_type: String,
    },
    /// An embedded resource's text.
    ResourceText {
        uri: String,
        mime_type: Option<String>,
        text: String,
    },
    /// An embedded resource's binary contents (base64).
    ResourceBlob {
        uri: String,
        mime_type: Option<String>,
        blob: String,
    },
    /// A link to a resource the model can read with `ReadMcpResource`.
    Link {
        uri: String,
        name: String,
        description: Option<String>,
    },
}

/// What a tool call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    pub content: Vec<McpContent>,
    pub structured: Option<Value>,
    /// The tool reports that it failed (`isError`).
    pub is_error: bool,
}

/// Receives a call's progress notifications, as lines of text.
pub type ProgressSink = Arc<dyn Fn(&str) + Send + Sync>;

/// What the server tells the client unasked: progress of calls in flight (by their
/// progress token) and that its tools or its prompts changed.
#[derive(Default)]
struct Heard {
    progress: Mutex<Progress>,
    tools_changed: Notify,
    prompts_changed: Notify,
}

/// Progress lines by call. A server may report progress before the call's sink is
/// registered (the request is out before its token is known here): such lines wait in
/// `early`, a few of them, for the sink.
#[derive(Default)]
struct Progress {
    sinks: HashMap<ProgressToken, ProgressSink>,
    early: Vec<(ProgressToken, String)>,
}

/// Most progress lines kept for calls whose sink is not registered yet.
const MAX_EARLY_PROGRESS: usize = 64;

impl Progress {
    fn hear(&mut self, token: ProgressToken, line: String) -> Option<(ProgressSink, String)> {
        match self.sinks.get(&token) {
            Some(sink) => Some((Arc::clone(sink), line)),
            None => {
                if self.early.len() >= MAX_EARLY_PROGRESS {
                    self.early.remove(0);
                }
                self.early.push((token, line));
                None
            }
        }
    }

    /// Registers `sink` for `token`; the lines heard for it before.
    fn register(&mut self, token: &ProgressToken, sink: ProgressSink) -> Vec<String> {
        self.sinks.insert(token.clone(), sink);
        let (mine, others): (Vec<_>, Vec<_>) = self.early.drain(..).partition(|(t, _)| t == token);
        self.early = others;
        mine.into_iter().map(|(_, line)| line).collect()
    }
}

/// The client side's handler of the server's notifications.
struct Hooks(Arc<Heard>);

impl ClientHandler for Hooks {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let amount = match params.total {
            Some(total) => format!("{}/{}", params.progress, total),
            None => params.progress.to_string(),
        };
        let line = match params.message {
            Some(message) => format!("{message} ({amount})\n"),
            None => format!("progress {amount}\n"),
        };
        let heard = match self.0.progress.lock() {
            Ok(mut progress) => progress.hear(params.progress_token, line),
            Err(_) => None,
        };
        if let Some((sink, line)) = heard {
            sink(&line);
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.tools_changed.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.prompts_changed.notify_one();
    }
}

/// A live connection: what calls go through. Cheap to share (`Arc`).
pub struct McpClient {
    name: String,
    peer: Peer<RoleClient>,
    heard: Arc<Heard>,
}

/// The connection's life: [`Connection::closed`] returns when it ends (the server
/// exited or the transport failed); dropping it closes the connection.
pub struct Connection {
    service: RunningService<RoleClient, Hooks>,
}

impl Connection {
    /// Waits until the connection ends, and says how.
    pub async fn closed(self) -> String {
        match self.service.waiting().await {
            Ok(reason) => format!("{reason:?}"),
            Err(e) => format!("the connection's task failed: {e}"),
        }
    }
}

impl McpClient {
    /// Starts or reaches server `name` as `launch` says and initialises the session,
    /// within `startup_timeout`.
    pub async fn connect(
        name: &str,
        launch: &Launch,
        startup_timeout: Duration,
    ) -> Result<(McpClient, Connection), McpError> {
        let heard = Arc::new(Heard::default());
        let hooks = Hooks(Arc::clone(&heard));
        let started = tokio::time::timeout(startup_timeout, Self::start(name, launch, hooks)).await;
        let service = started.map_err(|_| McpError::StartTimeout(startup_timeout))??;
        let client = McpClient {
            name: name.to_string(),
            peer: service.peer().clone(),
            heard,
        };
        Ok((client, Connection { service }))
    }

    async fn start(
        name: &str,
        launch: &Launch,
        hooks: Hooks,
    ) -> Result<RunningService<RoleClient, Hooks>, McpError> {
        match launch {
            Launch::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env).current_dir(cwd).kill_on_drop(true);
                let (transport, stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| McpError::Start(format!("`{command}`: {e}")))?;
                if let Some(stderr) = stderr {
                    tokio::spawn(log_stderr(name.to_string(), stderr));
                }
                hooks
                    .serve(transport)
                    .await
                    .map_err(|e| McpError::Start(e.to_string()))
            }
            Launch::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (k, v) in headers {
                    let (Ok(k), Ok(v)) = (
                        http::HeaderName::try_from(k.as_str()),
                        http::HeaderValue::try_from(v.as_str()),
                    ) else {
                        return Err(McpError::Start(format!(
                            "the header `{k}` is not a valid HTTP header"
                        )));
                    };
                    custom.insert(k, v);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom);
                hooks
                    .serve(StreamableHttpClientTransport::from_config(config))
                    .await
                    .map_err(|e| McpError::Start(e.to_string()))
            }
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's `instructions`, if it gave any.
    pub fn instructions(&self) -> Option<String> {
        self.peer.peer_info().and_then(|i| i.instructions.clone())
    }

    /// Waits until the server says its tools changed (`notifications/tools/list_changed`;
    /// one that came while nobody waited counts).
    pub async fn tools_changed(&self) {
        self.heard.tools_changed.notified().await;
    }

    /// Every tool the server has (all pages).
    pub async fn tools(&self) -> Result<Vec<McpTool>, McpError> {
        let tools = self.peer.list_all_tools().await.map_err(service_error)?;
        Ok(tools
            .into_iter()
            .map(|t| McpTool {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object((*t.input_schema).clone()),
                read_only_hint: t.annotations.and_then(|a| a.read_only_hint),
            })
            .collect())
    }

    /// Calls tool `name` with `arguments`, giving up after `timeout` or when `cancel`
    /// fires (the server is told with `notifications/cancelled`); the server's progress
    /// notifications for it go to `progress`.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
        cancel: &CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<CallOutput, McpError> {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = self
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(service_error)?;
        let mut in_flight = InFlight {
            heard: Arc::clone(&self.heard),
            peer: self.peer.clone(),
            id: handle.id.clone(),
            token: handle.progress_token.clone(),
            answered: false,
        };
        if let Some(sink) = progress {
            let early = match self.heard.progress.lock() {
                Ok(mut p) => p.register(&in_flight.token, Arc::clone(&sink)),
                Err(_) => Vec::new(),
            };
            for line in early {
                sink(&line);
            }
        }
        let outcome = tokio::select! {
            answer = handle.await_response() => Ok(answer),
            () = tokio::time::sleep(timeout) => Err(McpError::CallTimeout(timeout)),
            () = cancel.cancelled() => Err(McpError::Cancelled),
        };
        // Given up (here, or by a caller dropping this future): the guard tells the server.
        in_flight.answered = outcome.is_ok();
        drop(in_flight);
        let answer = outcome?.map_err(service_error)?;
        let ServerResult::CallToolResult(result) = answer else {
            return Err(McpError::Refused(
                "the server answered the call with something other than a tool result".into(),
            ));
        };
        Ok(CallOutput {
            content: result.content.into_iter().map(content_of).collect(),
            structured: result.structured_content,
            is_error: result.is_error == Some(true),
        })
    }

    /// Every resource the server lists (all pages).
    pub async fn resources(&self) -> Result<Vec<McpResource>, McpError> {
        let resources = self
            .peer
            .list_all_resources()
            .await
            .map_err(service_error)?;
        Ok(resources
            .into_iter()
            .map(|r| McpResource {
                uri: r.uri,
                name: r.name,
                description: r.description,
                mime_type: r.mime_type,
            })
            .collect())
    }

    /// The contents of resource `uri`.
    pub async fn read_resource(
        &self,
        uri: &str,
        timeout: Duration,
    ) -> Result<Vec<McpContent>, McpError> {
        let read = self
            .peer
            .read_resource(ReadResourceRequestParams::new(uri.to_string()));
        let result = tokio::time::timeout(timeout, read)
            .await
            .map_err(|_| McpError::CallTimeout(timeout))?
            .map_err(service_error)?;
        Ok(result.contents.into_iter().map(resource_content).collect())
    }
}

/// A call on its way: when it ends — answered, given up, or its future dropped by a
/// caller that stopped waiting — its progress sink goes, and unless it was answered
/// the server hears `notifications/cancelled` (sent from a task of its own, since a
/// drop cannot wait).
struct InFlight {
    heard: Arc<Heard>,
    peer: Peer<RoleClient>,
    id: RequestId,
    token: ProgressToken,
    answered: bool,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut p) = self.heard.progress.lock() {
            p.sinks.remove(&self.token);
            p.early.retain(|(t, _)| *t != self.token);
        }
        if !self.answered
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let (peer, id) = (self.peer.clone(), self.id.clone());
            runtime.spawn(async move {
                let note = cancelled(id, "the client stopped waiting for the call".into());
                let _ = peer.send_notification(note).await;
            });
        }
    }
}

/// Longest stderr line of a server written to the log (the rest of it is dropped):
/// a server that never ends a line must not grow the daemon's memory.
const MAX_STDERR_LINE: usize = 4_096;

/// Writes a stdio server's stderr to the daemon log, line by line, until it closes.
async fn log_stderr(server: String, stderr: tokio::process::ChildStderr) {
    let mut reader = tokio::io::BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (part, ended) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        let room = MAX_STDERR_LINE.saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        let used = ended.unwrap_or(chunk.len());
        reader.consume(used);
        if ended.is_some() {
            tracing::info!(server = %server, "mcp server stderr: {}", String::from_utf8_lossy(&line));
            line.clear();
        }
    }
    if !line.is_empty() {
        tracing::info!(server = %server, "mcp server stderr: {}", String::from_utf8_lossy(&line));
    }
}

/// `notifications/cancelled` for request `id`.
fn cancelled(id: RequestId, reason: String) -> ClientNotification {
    ClientNotification::CancelledNotification(CancelledNotification::new(
        CancelledNotificationParam::new(Some(id), Some(reason)),
    ))
}

fn service_error(e: rmcp::ServiceError) -> McpError {
    match e {
        rmcp::ServiceError::McpError(data) => McpError::Refused(data.message.to_string()),
        other => McpError::Closed(other.to_string()),
    }
}

fn resource_content(r: ResourceContents) -> McpContent {
    match r {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => McpContent::ResourceText {
            uri,
            mime_type,
            text,
        },
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => McpContent::ResourceBlob {
            uri,
            mime_type,
            blob,
        },
        other => unknown(&other),
    }
}

/// Content of a kind newer than this daemon, shown as the server sent it.
fn unknown(content: &impl serde::Serialize) -> McpContent {
    let json = serde_json::to_string(content).unwrap_or_default();
    McpContent::Text(format!("(content of a kind RooCode does not know: {json})"))
}

fn content_of(block: ContentBlock) -> McpContent {
    match block {
        ContentBlock::Text(t) => McpContent::Text(t.text),
        ContentBlock::Image(i) => McpContent::Image {
            data: i.data,
            mime_type: i.mime_type,
        },
        ContentBlock::Audio(a) => McpContent::Audio {
            data: a.data,
            mime_type: a.mime_type,
        },
        ContentBlock::Resource(r) => resource_content(r.resource),
        ContentBlock::ResourceLink(l) => McpContent::Link {
            uri: l.uri,
            name: l.name,
            description: l.description,
        },
        other => unknown(&other),
    }
}

#[path = "client_prompts.rs"]
mod prompts;

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
