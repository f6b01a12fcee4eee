//! `ListMcpResources` and `ReadMcpResource`: the resources of the session's MCP
//! servers (DESIGN.md §7). Listing only names what the servers offer; reading one asks
//! a server for its contents, which comes back as a tool result does (text, images,
//! blobs as a note), so it goes through the gate as an MCP call does: asked in
//! `default` mode unless a rule allows it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use super::client::{CallOutput, McpClient};
use super::result::to_output;
use super::server::{Server, State};
use crate::tools::{
    Effect, Invocation, PermissionTarget, Prepared, Spec, Tool, ToolCategory, ToolContext,
    ToolError, ToolOutput,
};

pub const LIST: &str = "ListMcpResources";
pub const READ: &str = "ReadMcpResource";

/// Longest a resource call waits for its server to be up.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// A session's server, by the name its configuration gives it.
#[derive(Clone)]
pub struct NamedServer {
    pub name: String,
    pub server: Arc<Server>,
    pub timeout: Duration,
}

/// The session's servers, for both tools.
pub type Servers = Arc<[NamedServer]>;

pub struct ListResourcesTool(pub Servers);
pub struct ReadResourceTool(pub Servers);

impl Tool for ListResourcesTool {
    fn spec(&self) -> Spec {
        Spec::new(
            LIST,
            "Lists the resources (files, documents, records…) the MCP servers of this session offer, with their URIs. Give `server` to list only that server's. Read one with ReadMcpResource.",
            Effect::OwnState,
            ToolCategory::Mcp,
        )
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"server": {"type": "string", "description": "Only this server's resources"}},
            "additionalProperties": false
        })
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let server = input["server"].as_str().map(str::to_string);
        if let Some(name) = &server {
            find(&self.0, name)?;
        }
        Ok(Prepared {
            spec: self.spec(),
            target: PermissionTarget::None,
            concurrency_safe: true,
            unsandboxed: false,
            invocation: Box::new(List {
                servers: Arc::clone(&self.0),
                only: server,
            }),
        })
    }
}

impl Tool for ReadResourceTool {
    fn spec(&self) -> Spec {
        Spec::new(
            READ,
            "Reads a resource of an MCP server by its URI (as ListMcpResources or a resource link in a tool result gives it).",
            Effect::External,
            ToolCategory::Mcp,
        )
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "The MCP server's name"},
                "uri": {"type": "string", "description": "The resource's URI"}
            },
            "required": ["server", "uri"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let name = input["server"].as_str().unwrap_or_default();
        let server = find(&self.0, name)?.clone();
        Ok(Prepared {
            spec: self.spec(),
            target: PermissionTarget::None,
            concurrency_safe: true,
            unsandboxed: false,
            invocation: Box::new(Read {
                server,
                uri: input["uri"].as_str().unwrap_or_default().to_string(),
            }),
        })
    }
}

fn find<'s>(servers: &'s [NamedServer], name: &str) -> Result<&'s NamedServer, ToolError> {
    servers.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        ToolError::InvalidInput(format!(
            "No MCP server is named `{name}`; this session's are: {}.",
            names.join(", ")
        ))
    })
}

/// The server's connection, or why there is none.
async fn client_of(s: &NamedServer) -> Result<Arc<McpClient>, String> {
    match s.server.connected(CONNECT_WAIT).await.state {
        State::Connected { client, .. } => Ok(client),
        State::Starting => Err(format!("the MCP server `{}` is still starting", s.name)),
        State::Failed { reason, .. } => Err(format!(
            "the MCP server `{}` is unavailable: {reason}",
            s.name
        )),
    }
}

struct List {
    servers: Servers,
    only: Option<String>,
}

impl Invocation for List {
    fn run<'a>(
        self: Box<Self>,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let mut lines = Vec::new();
            for s in self.servers.iter() {
                if self.only.as_ref().is_some_and(|only| *only != s.name) {
                    continue;
                }
                let listed = match client_of(s).await {
                    Ok(client) => client.resources().await.map_err(|e| e.to_string()),
                    Err(why) => Err(why),
                };
                match listed {
                    Ok(resources) if resources.is_empty() => {
                        lines.push(format!("{}: no resources", s.name));
                    }
                    Ok(resources) => {
                        for r in resources {
                            let mut line = format!("{}: {} ({})", s.name, r.uri, r.name);
                            if let Some(mime) = r.mime_type {
                                line.push_str(&format!(" [{mime}]"));
                            }
                            if let Some(d) = r.description {
                                line.push_str(&format!(" — {d}"));
                            }
                            lines.push(line);
                        }
                    }
                    Err(why) => lines.push(format!("{}: cannot list: {why}", s.name)),
                }
            }
            if lines.is_empty() {
                lines.push("No MCP server of this session offers resources.".into());
            }
            Ok(ToolOutput::text(lines.join("\n")))
        })
    }
}

struct Read {
    server: NamedServer,
    uri: String,
}

impl Invocation for Read {
    fn run<'a>(
        self: Box<Self>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let client = match client_of(&self.server).await {
                Ok(client) => client,
                Err(why) => return Ok(ToolOutput::error(why)),
            };
            let read = client.read_resource(&self.uri, self.server.timeout);
            let contents = tokio::select! {
                read = read => read,
                () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            };
            match contents {
                Ok(content) => Ok(to_output(
                    &self.server.name,
                    CallOutput {
                        content,
                        structured: None,
                        is_error: false,
                    },
                )),
                Err(e) => Ok(ToolOutput::error(format!(
                    "Cannot read {} from the MCP server `{}`: {e}",
                    self.uri, self.server.name
                ))),
            }
        })
    }
}
