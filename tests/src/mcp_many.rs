//! An MCP server with many generated tools (`mcp-fixture --tools N`), for the deferred
//! loading benchmark: each tool has a description and a schema of the size real
//! servers send (a few documented properties, an enum, a nested object), and answers
//! every call with its name and arguments. Its tool `grow` adds one more tool and says
//! so (`notifications/tools/list_changed`), as servers whose tools change do.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

/// The server of `n` tools.
#[derive(Clone)]
pub struct ManyTools {
    tools: Arc<Mutex<Vec<Tool>>>,
}

impl ManyTools {
    pub fn new(n: usize) -> Self {
        let tools = (0..n).map(tool).chain([grow()]).collect();
        ManyTools {
            tools: Arc::new(Mutex::new(tools)),
        }
    }
}

fn grow() -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    Tool::new("grow", "Adds one more collection tool", schema)
}

fn tool(i: usize) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": format!("What to look for in collection {i}: words, a phrase in quotes, or field:value pairs")},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "The most records to return (default 20)"},
            "order": {"type": "string", "enum": ["newest", "oldest", "relevance"], "description": "How to sort the records"},
            "filter": {
                "type": "object",
                "description": "Only records matching all of these",
                "properties": {
                    "owner": {"type": "string", "description": "The owner's login"},
                    "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels the record must carry"},
                    "since": {"type": "string", "description": "ISO 8601 date: only records changed since"}
                }
            }
        },
        "required": ["query"]
    });
    let schema: JsonObject = match schema {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(
        format!("collection_{i:03}_search"),
        format!(
            "Searches collection {i} of the workspace's records and returns the matching ones with their id, title, owner and labels. Use it when the user asks about records of collection {i}."
        ),
        schema,
    )
}

impl ServerHandler for ManyTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools.lock().map(|t| t.clone()).unwrap_or_default();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "grow" {
            let added = match self.tools.lock() {
                Ok(mut tools) => {
                    let next = tool(tools.len() - 1);
                    let name = next.name.to_string();
                    tools.push(next);
                    name
                }
                Err(_) => return Err(ErrorData::internal_error("poisoned", None)),
            };
            let _ = context.peer.notify_tool_list_changed().await;
            return Ok(
                CallToolResult::success(vec![ContentBlock::text(format!("added {added}"))]).into(),
            );
        }
        let args = serde_json::to_string(&request.arguments).unwrap_or_default();
        Ok(
            CallToolResult::success(vec![ContentBlock::text(format!("{} {args}", request.name))])
                .into(),
        )
    }
}
