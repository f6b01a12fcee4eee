//! `ToolSearch`: how an agent whose MCP tools are deferred (sent by name only, see
//! `tools::deferral`) loads their full schemas — by keywords, or exactly with
//! `select:name1,name2` — as Claude Code's tool of that name does. What it finds joins
//! the agent's discovered set, whose schemas the daemon sends with every request from
//! then on; the result shows the schemas at once, so the agent can call them now. It
//! works the same on every provider: nothing is asked of the provider's side.

use std::sync::{Arc, OnceLock};

use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::llm::ToolSpec;
use crate::tools::{
    Discovered, Effect, Invocation, PermissionTarget, Prepared, Spec, Tool, ToolCategory,
    ToolContext, ToolError, ToolOutput,
};

/// The tool's name, as Claude Code's.
pub const NAME: &str = "ToolSearch";
/// Tools found when `max_results` is not given.
const DEFAULT_RESULTS: usize = 5;

const DESCRIPTION: &str = "Loads the full definitions of deferred tools, so that they can be called. Some tools (those of MCP servers, when there are many) are listed by name only, in a system reminder, and their parameters are not known until loaded with this tool.\n\nUsage:\n- `select:name1,name2` loads those tools by their exact names (the names the reminder lists).\n- Otherwise the query is keywords, matched against the tools' names and descriptions; the best matches are loaded (at most `max_results`, default 5).\n- The result holds each found tool's JSON schema; the tools can be called right after, with arguments that follow it.\n- Once loaded, a tool stays available for the rest of the session.";

/// What `ToolSearch` can load: set once, after the tools it lists were registered
/// (it is registered before them, so tools a server adds later come after it).
pub type Catalog = Arc<OnceLock<Vec<ToolSpec>>>;

/// `ToolSearch` over one agent's MCP tools.
pub struct ToolSearchTool {
    catalog: Catalog,
    discovered: Arc<Discovered>,
}

impl ToolSearchTool {
    /// The tool over `catalog` (the tools it can load), adding what it finds to
    /// `discovered`.
    pub fn new(catalog: Vec<ToolSpec>, discovered: Arc<Discovered>) -> Self {
        let (tool, slot) = Self::pending(discovered);
        let _ = slot.set(catalog);
        tool
    }

    /// The tool with its catalog to be set through the returned slot.
    pub fn pending(discovered: Arc<Discovered>) -> (Self, Catalog) {
        let catalog = Catalog::default();
        let tool = ToolSearchTool {
            catalog: Arc::clone(&catalog),
            discovered,
        };
        (tool, catalog)
    }
}

impl Tool for ToolSearchTool {
    fn spec(&self) -> Spec {
        Spec::new(NAME, DESCRIPTION, Effect::OwnState, ToolCategory::Mcp)
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Keywords, or `select:name1,name2` for tools by exact name"
                },
                "max_results": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The most tools to load (default 5)"
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let query = input["query"].as_str().unwrap_or_default().to_string();
        let max = input["max_results"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(DEFAULT_RESULTS);
        Ok(Prepared {
            spec: self.spec(),
            target: PermissionTarget::None,
            concurrency_safe: true,
            unsandboxed: false,
            invocation: Box::new(Search {
                catalog: Arc::clone(&self.catalog),
                discovered: Arc::clone(&self.discovered),
                query,
                max,
            }),
        })
    }
}

struct Search {
    catalog: Catalog,
    discovered: Arc<Discovered>,
    query: String,
    max: usize,
}

impl Invocation for Search {
    fn run<'a>(
        self: Box<Self>,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let catalog = self.catalog.get().map_or(&[][..], Vec::as_slice);
            let found = find(catalog, &self.query, self.max);
            if found.is_empty() {
                let names: Vec<&str> = catalog.iter().map(|t| &*t.name).collect();
                return Ok(ToolOutput::text(format!(
                    "No tool matches `{}`. The tools that can be loaded are: {}.",
                    self.query,
                    names.join(", ")
                )));
            }
            self.discovered.add(found.iter().map(|t| &*t.name));
            let mut text = format!(
                "Loaded {} tool{}; they can be called now:\n<functions>\n",
                found.len(),
                if found.len() == 1 { "" } else { "s" }
            );
            for tool in &found {
                let def = json!({
                    "name": &*tool.name,
                    "description": &*tool.description,
                    "parameters": tool.input_schema,
                });
                text.push_str(&format!("<function>{def}</function>\n"));
            }
            text.push_str("</functions>");
            Ok(ToolOutput::text(text))
        })
    }
}

/// The tools of `catalog` that `query` names (`select:a,b`) or best matches.
fn find<'c>(catalog: &'c [ToolSpec], query: &str, max: usize) -> Vec<&'c ToolSpec> {
    let query = query.trim();
    if let Some(names) = query.strip_prefix("select:") {
        let wanted: Vec<&str> = names.split(',').map(str::trim).collect();
        return catalog
            .iter()
            .filter(|t| wanted.contains(&&*t.name))
            .collect();
    }
    let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut scored: Vec<(usize, usize, &ToolSpec)> = catalog
        .iter()
        .enumerate()
        .filter_map(|(i, tool)| {
            let name = tool.name.to_lowercase();
            let description = tool.description.to_lowercase();
            let score: usize = terms
                .iter()
                .map(|t| {
                    usize::from(name.contains(t.as_str())) * 3
                        + usize::from(description.contains(t.as_str()))
                })
                .sum();
            (score > 0).then_some((score, i, tool))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(max).map(|(_, _, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        }
    }

    fn catalog() -> Vec<ToolSpec> {
        vec![
            tool(
                "mcp__github__create_issue",
                "Create an issue in a repository",
            ),
            tool(
                "mcp__github__list_issues",
                "List the issues of a repository",
            ),
            tool(
                "mcp__notes__search",
                "Search the notes for an issue or a text",
            ),
        ]
    }

    #[test]
    fn select_takes_exact_names_and_keywords_rank_names_first() {
        let c = catalog();
        let names = |found: Vec<&ToolSpec>| -> Vec<String> {
            found.iter().map(|t| t.name.to_string()).collect()
        };
        assert_eq!(
            names(find(
                &c,
                "select:mcp__notes__search, mcp__github__list_issues",
                5
            )),
            ["mcp__github__list_issues", "mcp__notes__search"]
        );
        assert_eq!(names(find(&c, "search notes", 5)), ["mcp__notes__search"]);
        let issues = names(find(&c, "issue", 2));
        assert_eq!(
            issues,
            ["mcp__github__create_issue", "mcp__github__list_issues"]
        );
        assert!(find(&c, "calendar", 5).is_empty());
    }

    #[tokio::test]
    async fn what_it_finds_is_discovered_and_shown_with_its_schema() {
        let discovered = Arc::new(Discovered::new([], None));
        let search = ToolSearchTool::new(catalog(), Arc::clone(&discovered));
        let ctx = ToolContext::new("s", "/tmp".into(), "/tmp".into());
        let prepared = search
            .prepare(&json!({"query": "select:mcp__notes__search"}), &ctx)
            .unwrap();
        let out = prepared.run(&ctx).await.unwrap();
        assert!(discovered.contains("mcp__notes__search"));
        assert!(!discovered.contains("mcp__github__list_issues"));
        assert!(
            out.content.contains("\"parameters\":{\"properties\""),
            "{}",
            out.content
        );
        let none = search
            .prepare(&json!({"query": "calendar"}), &ctx)
            .unwrap()
            .run(&ctx)
            .await
            .unwrap();
        assert!(
            none.content.starts_with("No tool matches `calendar`"),
            "{}",
            none.content
        );
    }
}
