//! The `TodoWrite` tool and the session's [`TodoList`]: the model keeps its plan as a
//! list of tasks (pending, in progress, completed) that it replaces whole on each call;
//! clients read it with [`TodoList::snapshot`].
//!
//! `TodoWrite` reports itself read-only: it changes nothing outside RooCode's memory
//! (no file, process or network), so permission modes need not ask about it and it may
//! run in plan mode. It is still not concurrency-safe, because two calls in one batch
//! would race to replace the same list.

use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Effect, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool};

const DESCRIPTION: &str = "\
Creates and updates your task list for the current session. Use it to plan and track \
multi-step work, and so the user can follow your progress.

When to use it:
- A task needs three or more distinct steps, or the user gives you several things to do.
- Right after receiving new instructions: capture them as todos.
- When you start a task, mark it in_progress BEFORE beginning; when you finish it, mark \
it completed IMMEDIATELY (do not batch completions). Add follow-up tasks you discover.
Skip it for a single trivial task or a purely conversational request.

Rules:
- Each call replaces the whole list: always send every task, not only the changed ones.
- Each task has content (imperative: \"Run the tests\"), activeForm (present continuous, \
shown while it runs: \"Running the tests\") and status: pending, in_progress or completed.
- Exactly one task should be in_progress while you work; more than one is refused.
- Mark a task completed only when it is fully done: not if tests fail, the \
implementation is partial or errors are unresolved; then keep it in_progress and add a \
task for what blocks it.";

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One task of the list, as the model writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// The task, imperative ("Run the tests")
    #[schemars(length(min = 1))]
    pub content: String,
    pub status: TodoStatus,
    /// The task in present continuous ("Running the tests")
    // Shown while the task is in progress.
    #[serde(rename = "activeForm")]
    #[schemars(length(min = 1))]
    pub active_form: String,
}

/// A session's task list, replaced whole by each `TodoWrite`.
#[derive(Debug, Default)]
pub struct TodoList {
    items: Mutex<Vec<TodoItem>>,
}

impl TodoList {
    pub fn new() -> Self {
        Self::default()
    }

    fn items(&self) -> MutexGuard<'_, Vec<TodoItem>> {
        // Replacing or cloning the Vec cannot be interrupted half-way, so a poisoned
        // lock still holds a whole list.
        self.items
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The list as it is now.
    pub fn snapshot(&self) -> Vec<TodoItem> {
        self.items().clone()
    }

    /// Replace the list.
    pub fn replace(&self, items: Vec<TodoItem>) {
        *self.items() = items;
    }
}

/// The built-in `TodoWrite` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct TodoWriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteArgs {
    /// The complete, updated task list
    pub todos: Vec<TodoItem>,
}

impl TypedTool for TodoWriteTool {
    type Args = TodoWriteArgs;

    /// See the module documentation: it only changes RooCode's own memory.
    fn spec(&self) -> Spec {
        Spec::new(
            "TodoWrite",
            DESCRIPTION,
            Effect::OwnState,
            ToolCategory::Coordination,
        )
    }

    fn run<'a>(
        &'a self,
        input: TodoWriteArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let doing: Vec<&str> = input
                .todos
                .iter()
                .filter(|t| t.status == TodoStatus::InProgress)
                .map(|t| t.content.as_str())
                .collect();
            if doing.len() > 1 {
                return Err(ToolError::InvalidInput(format!(
                    "{} tasks are in_progress ({}); at most one may be. Keep the one you are \
                     working on in_progress and set the others to pending or completed.",
                    doing.len(),
                    doing.join("; ")
                )));
            }
            let text = render(&input.todos);
            ctx.todos.replace(input.todos);
            Ok(ToolOutput::text(text))
        }
        .boxed()
    }
}

/// The list as the model sees it after a change.
pub fn render(items: &[TodoItem]) -> String {
    if items.is_empty() {
        return "Todo list cleared.".to_string();
    }
    let done = items
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    let mut text = format!("Todo list updated ({done}/{} completed):", items.len());
    for item in items {
        let mark = match item.status {
            TodoStatus::Completed => "[x]",
            TodoStatus::InProgress => "[>]",
            TodoStatus::Pending => "[ ]",
        };
        let _ = write!(text, "\n{mark} {}", item.content);
    }
    text
}

#[cfg(test)]
mod tests;
