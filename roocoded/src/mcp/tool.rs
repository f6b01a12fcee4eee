//! [`McpToolAdapter`]: one tool of an MCP server as the registry holds it. Its schema
//! is the server's, taken as given; its effect is `External` (the gate asks unless a
//! rule allows it: a server's `readOnlyHint` is a program's claim, never a permission);
//! a call goes to whatever connection the server has now, so a restarted server's tools
//! keep working, and the server's result comes back converted ([`super::result`]).

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use super::client::{McpError, McpTool, ProgressSink};
use super::result::to_output;
use super::server::{Server, State};
use crate::tools::{
    Effect, Invocation, PermissionTarget, Prepared, Spec, Tool, ToolCategory, ToolContext,
    ToolError, ToolOutput,
};

/// Longest a call waits for its server to come back from a crash.
const RESTART_WAIT: Duration = Duration::from_secs(30);

/// Longest description sent for one MCP tool (some servers write manuals).
const MAX_DESCRIPTION_CHARS: usize = 2_048;

/// One tool of one server, under the name the model calls it by.
pub struct McpToolAdapter {
    spec: Spec,
    /// The server's name in this session's configuration.
    server_name: String,
    tool: McpTool,
    server: Arc<Server>,
    timeout: Duration,
}

impl McpToolAdapter {
    pub fn new(
        name: String,
        server_name: &str,
        tool: McpTool,
        server: Arc<Server>,
        timeout: Duration,
    ) -> Self {
        let description = if tool.description.trim().is_empty() {
            format!(
                "The tool `{}` of the MCP server `{server_name}` (it gave no description).",
                tool.name
            )
        } else {
            crate::tools::output::truncate_chars(&tool.description, MAX_DESCRIPTION_CHARS)
        };
        McpToolAdapter {
            spec: Spec::new(name, description, Effect::External, ToolCategory::Mcp),
            server_name: server_name.to_string(),
            tool,
            server,
            timeout,
        }
    }
}

impl Tool for McpToolAdapter {
    fn spec(&self) -> Spec {
        self.spec.clone()
    }

    fn input_schema(&self) -> Value {
        self.tool.input_schema.clone()
    }

    fn schema_as_given(&self) -> bool {
        true
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let arguments = match input {
            Value::Object(map) => map.clone(),
            _ => {
                return Err(ToolError::InvalidInput(
                    "the arguments of an MCP tool must be a JSON object".into(),
                ));
            }
        };
        Ok(Prepared {
            spec: self.spec.clone(),
            target: PermissionTarget::None,
            concurrency_safe: false,
            unsandboxed: false,
            invocation: Box::new(McpCall {
                server_name: self.server_name.clone(),
                tool: self.tool.name.clone(),
                arguments,
                server: Arc::clone(&self.server),
                timeout: self.timeout,
            }),
        })
    }
}

/// One call, waiting for the gate.
struct McpCall {
    server_name: String,
    tool: String,
    arguments: Map<String, Value>,
    server: Arc<Server>,
    timeout: Duration,
}

impl Invocation for McpCall {
    fn run<'a>(
        self: Box<Self>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let McpCall {
                server_name,
                tool,
                arguments,
                server,
                timeout,
            } = *self;
            // A server restarting gets as long to come back as one call may take
            // (at most RESTART_WAIT).
            let client = match server.connected(timeout.min(RESTART_WAIT)).await.state {
                State::Connected { client, .. } => client,
                State::Starting => {
                    return Ok(ToolOutput::error(format!(
                        "The MCP server `{server_name}` is still starting; try again shortly."
                    )));
                }
                State::Failed { reason, .. } => {
                    return Ok(ToolOutput::error(format!(
                        "The MCP server `{server_name}` is unavailable: {reason}"
                    )));
                }
            };
            let progress: Option<ProgressSink> = ctx.progress.clone().map(|p| {
                let sink: ProgressSink = Arc::new(move |text: &str| p.emit(text));
                sink
            });
            match client
                .call(&tool, arguments, timeout, &ctx.cancel, progress)
                .await
            {
                Ok(output) => Ok(to_output(&server_name, output)),
                Err(McpError::Cancelled) => Err(ToolError::Cancelled),
                Err(McpError::Closed(why)) => Ok(ToolOutput::error(format!(
                    "The MCP server `{server_name}` crashed or closed its connection during the call ({why}); RooCode is restarting it. The call's effect, if any, is unknown."
                ))),
                Err(e) => Ok(ToolOutput::error(format!(
                    "The MCP server `{server_name}`: {e}"
                ))),
            }
        })
    }
}
