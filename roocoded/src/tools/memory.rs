//! The `Memory` tool: the model saves, updates and deletes its auto memories
//! ([`crate::memory::auto`]) in the directories of `ctx.memory_dirs`.
//!
//! It writes files, but only RooCode's own memory directories (`~/.roocode/memory/`,
//! `<root>/.roocode/memory/`), never the project's code and never a path the model
//! chooses (file names are slugs of the memory name). So, like `TodoWrite`, it reports
//! itself read-only to the permission system (nothing of the user's changes) and its
//! permission target is [`super::PermissionTarget::None`]; rules can still match it
//! by name (`Memory`), so a deny rule stops it.
//! It is not concurrency-safe: two calls in one batch would race on the `MEMORY.md`
//! indexes and on name uniqueness.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool, run_blocking,
};
use crate::memory::auto::{self, INDEX_FILE, MemoryError, MemoryType};

const DESCRIPTION: &str = "\
Saves, updates or deletes a persistent memory: a short note that later sessions will \
see. An index of all memories (name and description) is shown at the start of every \
session; the full text is read on demand. Memories are RooCode's own files, not the \
project's code.

Save a memory when you learn something that will still matter in a future session:
- user: the user's stated preferences, role or habits (\"always use pnpm\", \"I am a \
backend developer, explain frontend code in more detail\").
- feedback: a correction of your behaviour (\"do not add comments that restate the \
code\", \"run the linter before saying you are done\"). Include why, if the user said.
- project: durable facts about this project that cannot be derived from its code or git \
history: how to deploy, which environment is production, where secrets are kept (the \
location, NEVER the secret itself), who owns what, decisions and their reasons.
- reference: pointers to outside resources: URLs of docs, dashboards, issue trackers, \
runbooks.
user and feedback memories apply to all projects of this user; project and reference \
memories belong to the current project.

Do NOT save:
- anything you can find again in the code, the files or the git history (structure, \
conventions visible in the code, recent changes);
- details of the current task or conversation that will not matter later;
- guesses or conclusions you have not verified;
- sensitive data: passwords, tokens, keys, personal data.

Actions:
- save: a new memory. type, description and content are required; the name must be \
new (check the index first: update an existing memory rather than saving a near \
duplicate).
- update: change an existing memory by name; give any of description, content, type \
(content replaces the whole text). When the user corrects something you remembered, \
update it.
- delete: remove a memory by name, e.g. when it became wrong or the user asks you to \
forget it.

name is a short title (\"Package manager\"), unique across all memories. description is \
one line saying what the memory is about; it is what you will see in the index, so make \
it specific enough to decide whether to read the memory. content is the memory itself, \
in Markdown: concise, self-contained, stating facts rather than the story of how you \
learned them.";

/// The built-in `Memory` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemoryTool;

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Save,
    Update,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryArgs {
    /// save a new memory, update an existing one, or delete one
    pub action: Action,
    /// Short unique title of the memory ("Package manager")
    #[schemars(length(min = 1, max = auto::MAX_NAME_CHARS))]
    pub name: String,
    /// Kind of memory (required for save): user and feedback apply to all projects, project and reference to this one
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// One line shown in the memory index (required for save)
    #[schemars(length(min = 1))]
    pub description: Option<String>,
    /// The memory itself, in Markdown (required for save; replaces the text on update)
    #[schemars(length(min = 1))]
    pub content: Option<String>,
}

impl TypedTool for MemoryTool {
    type Args = MemoryArgs;

    /// It writes only RooCode's own memory files, never the project or anything the
    /// user's tools see, so the permission system treats it like `TodoWrite`: allowed
    /// without asking (a deny rule `Memory` still stops it). No path to match either:
    /// the model does not choose file names as paths (see the module docs).
    fn spec(&self) -> Spec {
        Spec::new("Memory", DESCRIPTION, Effect::OwnState, ToolCategory::File)
    }

    fn run<'a>(
        &'a self,
        input: MemoryArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let dirs = ctx.memory_dirs.clone().ok_or_else(|| {
                ToolError::Failed(
                    "memory is not available in this session (no memory directories); \
                     do not retry"
                        .to_string(),
                )
            })?;
            run_blocking(ctx, move |_cancel| run(&dirs, input)).await
        }
        .boxed()
    }
}

fn run(dirs: &auto::MemoryDirs, input: MemoryArgs) -> Result<ToolOutput, ToolError> {
    let name = input.name.trim();
    let text = match input.action {
        Action::Save => {
            let (Some(ty), Some(description), Some(content)) = (
                input.memory_type,
                input.description.as_deref(),
                input.content.as_deref(),
            ) else {
                let missing: Vec<&str> = [
                    ("type", input.memory_type.is_none()),
                    ("description", input.description.is_none()),
                    ("content", input.content.is_none()),
                ]
                .into_iter()
                .filter_map(|(field, absent)| absent.then_some(field))
                .collect();
                return Err(ToolError::InvalidInput(format!(
                    "action \"save\" requires type, description and content; missing: {}",
                    missing.join(", ")
                )));
            };
            let path = auto::save(dirs, name, ty, description, content).map_err(to_tool)?;
            format!(
                "Saved {} memory \"{name}\" to {} (index: {}).",
                ty.as_str(),
                path.display(),
                dirs.dir_for(ty).join(INDEX_FILE).display()
            )
        }
        Action::Update => {
            let entry = auto::update(
                dirs,
                name,
                input.description.as_deref(),
                input.content.as_deref(),
                input.memory_type,
            )
            .map_err(to_tool)?;
            format!(
                "Updated {} memory \"{}\" at {}.",
                entry.memory_type.as_str(),
                entry.name,
                entry.path.display()
            )
        }
        Action::Delete => {
            let entry = auto::delete(dirs, name).map_err(to_tool)?;
            format!(
                "Deleted {} memory \"{}\" ({} removed).",
                entry.memory_type.as_str(),
                entry.name,
                entry.path.display()
            )
        }
    };
    Ok(ToolOutput::text(text))
}

fn to_tool(e: MemoryError) -> ToolError {
    match e {
        MemoryError::Io { .. } => ToolError::Failed(e.to_string()),
        MemoryError::NotFound(_) => ToolError::InvalidInput(format!(
            "{e}; check the names in the memory index, or use action \"save\" for a new memory"
        )),
        MemoryError::Exists { .. } | MemoryError::Invalid(_) => {
            ToolError::InvalidInput(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests;
