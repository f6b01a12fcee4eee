//! A real MCP server for the MCP host's tests, written with `rmcp`'s server side and
//! served over stdio (`mcp-fixture`) or streamable HTTP (`mcp-fixture --http ADDR`, or
//! [`serve_http`] in-process). Its tools cover what servers in the wild do: `echo`,
//! `image` (a PNG), `slow` (sleeps), `crash` (the server process exits), `fail` (an
//! `isError` result), `notes.search` (a dotted name and a schema with `$ref`/`$defs`);
//! one resource, `fixture://readme`; and prompts: `greet` (a required `name` and an
//! optional `style`), `review_readme` (no arguments; messages of every kind: text, an
//! embedded resource, an assistant's turn, an image) and `more_prompts` (no arguments:
//! getting it adds a prompt `extra_<n>` and says so with
//! `notifications/prompts/list_changed`). [`Fixture::without_prompts`]
//! (`mcp-fixture --no-prompts`) announces no prompts. Its instructions name it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    ListPromptsResult, ListResourcesResult, PaginatedRequestParams, ProgressNotificationParam,
    Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
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
    /// It announces prompts.
    prompts: bool,
    /// How many prompts `more_prompts` added.
    extra_prompts: Arc<AtomicUsize>,
}

impl Default for Fixture {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
            prompts: true,
            extra_prompts: Arc::new(AtomicUsize::new(0)),
        }
    }
}

impl Fixture {
    /// The fixture announcing no prompts (it would still answer `prompts/list`).
    pub fn without_prompts() -> Self {
        Self {
            prompts: false,
            ..Self::default()
        }
    }

    fn prompt_list(&self) -> Vec<Prompt> {
        let greet = Prompt::new(
            "greet",
            Some("Greets someone"),
            Some(vec![
                PromptArgument::new("name")
                    .with_description("Who to greet")
                    .with_required(true),
                PromptArgument::new("style").with_description("How: formal, cheerful…"),
            ]),
        );
        let review = Prompt::new("review_readme", Some("Reviews the fixture's readme"), None);
        let more = Prompt::new(
            "more_prompts",
            Some("Adds a prompt to the list"),
            Some(vec![]),
        );
        let extra = (1..=self.extra_prompts.load(Ordering::SeqCst))
            .map(|n| Prompt::new(format!("extra_{n}"), Some("An added prompt"), None));
        [greet, review, more].into_iter().chain(extra).collect()
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
        let capabilities = if self.prompts {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .enable_prompts_list_changed()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build()
        };
        ServerConfig::new(capabilities).with_instructions(INSTRUCTIONS)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(self.prompt_list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let arg = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(name))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let messages = match request.name.as_str() {
            "greet" => {
                let Some(name) = arg("name") else {
                    return Err(ErrorData::invalid_params(
                        "the argument `name` is required",
                        None,
                    ));
                };
                let style = arg("style").unwrap_or_else(|| "plain".into());
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Say hello to {name} in a {style} way."),
                )]
            }
            "review_readme" => vec![
                PromptMessage::new_text(Role::User, "Review the readme below."),
                PromptMessage::new_resource(
                    Role::User,
                    "fixture://readme".into(),
                    Some("text/plain".into()),
                    Some(README.into()),
                    None,
                    None,
                    None,
                ),
                PromptMessage::new_text(Role::Assistant, "Here is my review."),
                PromptMessage::new(Role::User, ContentBlock::image(PIXEL_PNG, "image/png")),
            ],
            "more_prompts" => {
                let n = self.extra_prompts.fetch_add(1, Ordering::SeqCst) + 1;
                let _ = context.peer.notify_prompt_list_changed().await;
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Added the prompt extra_{n}."),
                )]
            }
            name if name.starts_with("extra_") => {
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("This is {name}."),
                )]
            }
            _ => return Err(ErrorData::invalid_params("no such prompt", None)),
        };
        Ok(GetPromptResult::new(messages).into())
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
