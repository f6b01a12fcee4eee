//! A real MCP server for the MCP host's tests, written with `rmcp`'s server side and
//! served over stdio (`mcp-fixture`) or streamable HTTP (`mcp-fixture --http ADDR`, or
//! [`serve_http`] in-process). Its tools cover what servers in the wild do: `echo`,
//! `image` (a PNG), `slow` (sleeps), `crash` (the server process exits), `fail` (an
//! `isError` result), `notes.search` (a dotted name and a schema with `$ref`/`$defs`);
//! and one resource, `fixture://readme`. Its instructions name it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, ListResourcesResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// What the fixture tells its clients to follow.
pub const INSTRUCTIONS: &str = "The fixture server: call echo to hear your text back.";

/// A one-pixel PNG, base64.
pub const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// The text of `fixture://readme`.
pub const README: &str = "The fixture's readme: resources read back.";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// What to say back.
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlowArgs {
    /// How long to take, in milliseconds.
    pub ms: u64,
}

/// A date range (a nested definition: schemars puts it under `$defs` with a `$ref`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Range {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    pub query: String,
    pub within: Option<Range>,
}

/// The fixture server.
#[derive(Clone)]
pub struct Fixture {
    tool_router: ToolRouter<Self>,
}

impl Default for Fixture {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Fixture {
    #[tool(description = "Says the text back")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        format!("echo: {}", args.text)
    }

    #[tool(description = "Returns a picture of one pixel")]
    async fn image(&self) -> CallToolResult {
        CallToolResult::success(vec![
            ContentBlock::text("one pixel:"),
            ContentBlock::image(PIXEL_PNG, "image/png"),
        ])
    }

    #[tool(description = "Takes its time, saying so in a progress notification")]
    async fn slow(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> String {
        if let Some(token) = context.meta.get_progress_token() {
            let note = ProgressNotificationParam::new(token, 0.0)
                .with_total(1.0)
                .with_message(format!("sleeping {} ms", args.ms));
            let _ = context.peer.notify_progress(note).await;
        }
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        format!("slept {} ms", args.ms)
    }

    #[tool(description = "Makes the server process exit")]
    async fn crash(&self) -> String {
        std::process::exit(3);
    }

    #[tool(description = "Fails, as a tool does")]
    async fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("the fixture failed on purpose")])
    }

    #[tool(name = "notes.search", description = "Searches the notes")]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        match args.within {
            Some(r) => format!("notes about {} from {} to {}", args.query, r.from, r.to),
            None => format!("notes about {}", args.query),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let readme = Resource::new("fixture://readme", "readme");
        Ok(ListResourcesResult::with_all_items(vec![readme]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "fixture://readme" {
            return Err(ErrorData::resource_not_found("no such resource", None));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(README, request.uri)]).into())
    }
}

/// Serves the fixture over streamable HTTP at `http://ADDR/mcp` (any path) on `addr`
/// (port 0: any free one) until the task is dropped; the bound address.
pub async fn serve_http(
    addr: SocketAddr,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let service: StreamableHttpService<Fixture, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Fixture::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    });
    Ok((bound, task))
}
