//! Observers: what a function's `observe` items do after a tool call (`tool_after`,
//! filtered by tool and output), after each assistant message (`message`) and when the
//! function is activated (`activate`) — record evidence, capture an artifact from the
//! assistant's text, keep the todo list and a checklist artifact in step, set keys of
//! its store, or inject a text through the agent's inbox. Every live function records
//! the tools the agent calls (`tool_observed`); only an active one's observers act.

use roocode_protocol::workflow::FunctionPhase;

use super::artifacts;
use super::bench::{Bench, checklist_artifacts, event};
use crate::skills::function::{Action, On};
use crate::tools::{TodoItem, TodoStatus};

/// What set observers off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    ToolAfter,
    Message,
    Activate,
}

impl Bench {
    /// A tool call of the agent ended with `output`; `text` is the assistant's text of
    /// the iteration (where `capture_artifact` looks).
    pub fn observe_tool(&mut self, tool: &str, output: &str, text: Option<&str>) {
        for name in self.live() {
            if self
                .row(&name)
                .is_some_and(|r| !r.tools.iter().any(|t| t == tool))
                && let Some(row) = self.row_mut(&name)
            {
                row.tools.push(tool.to_string());
            }
            self.observe_function(&name, Trigger::ToolAfter, Some((tool, output)), text);
        }
    }

    /// The assistant said `text` (at the end of a turn too).
    pub fn observe_message(&mut self, text: &str) {
        for name in self.live() {
            self.observe_function(&name, Trigger::Message, None, Some(text));
        }
    }

    /// Runs `name`'s observers for `trigger`, when it is active.
    pub(super) fn observe_function(
        &mut self,
        name: &str,
        trigger: Trigger,
        call: Option<(&str, &str)>,
        text: Option<&str>,
    ) {
        if self
            .row(name)
            .is_none_or(|r| r.phase != FunctionPhase::Active)
        {
            return;
        }
        let Some((_, spec)) = self.function(name) else {
            return;
        };
        let observers = spec.observers.clone();
        for observer in observers {
            let fires = match (trigger, observer.on) {
                (Trigger::ToolAfter, On::ToolAfter) => {
                    call.is_some_and(|(tool, output)| observer.matches_tool(tool, output))
                }
                (Trigger::Message, On::Message) | (Trigger::Activate, On::Activate) => true,
                _ => false,
            };
            if !fires {
                continue;
            }
            for action in &observer.actions {
                self.act(name, trigger, action, text);
            }
        }
    }

    fn act(&mut self, name: &str, trigger: Trigger, action: &Action, text: Option<&str>) {
        match action {
            Action::SetEvidence(tags) => {
                let Some(row) = self.row(name) else {
                    return;
                };
                let new: Vec<String> = tags
                    .iter()
                    .filter(|t| !row.evidence.contains(t))
                    .cloned()
                    .collect();
                if new.is_empty() {
                    return;
                }
                if let Some(row) = self.row_mut(name) {
                    row.evidence.extend(new.iter().cloned());
                }
                self.events.push(event(
                    "evidence",
                    name,
                    None,
                    format!("function `{name}` recorded evidence: {}", new.join(", ")),
                ));
            }
            Action::CaptureArtifact(artifact) => {
                let Some(content) = text.and_then(|t| artifacts::capture(t, artifact)) else {
                    return;
                };
                self.put_artifact(artifact, content, name, "captured");
            }
            Action::SyncTodos => self.sync_todos(name, trigger),
            Action::Inject(message) => self
                .injections
                .push(format!("[workflow function `{name}`] {message}")),
            Action::SetState(pairs) => {
                let Some(row) = self.row(name) else {
                    return;
                };
                let new: Vec<(String, String)> = pairs
                    .iter()
                    .filter(|(k, v)| row.kv.get(k) != Some(v))
                    .cloned()
                    .collect();
                if new.is_empty() {
                    return;
                }
                if let Some(row) = self.row_mut(name) {
                    row.kv.extend(new.iter().cloned());
                }
                let shown: Vec<String> = new.iter().map(|(k, v)| format!("{k}={v}")).collect();
                self.events.push(event(
                    "state",
                    name,
                    None,
                    format!("function `{name}` set {}", shown.join(", ")),
                ));
            }
        }
    }

    /// Keeps `artifact` as `content` (written at commit), unless it says that already.
    /// `how`: what happened to it, for the event (`captured`, `ticked`).
    fn put_artifact(&mut self, artifact: &str, content: String, function: &str, how: &str) {
        if self.artifacts.get(artifact) == Some(&content) {
            return;
        }
        let bytes = content.len();
        let items = artifacts::checklist(&content);
        self.artifacts.insert(artifact.to_string(), content.clone());
        self.written.retain(|(n, _, _)| n != artifact);
        self.written
            .push((artifact.to_string(), content, Some(function.to_string())));
        let open = items.iter().filter(|i| !i.done).count();
        let checklist = if items.is_empty() {
            String::new()
        } else {
            format!(", {open} of {} checklist items open", items.len())
        };
        self.events.push(event(
            "artifact",
            artifact,
            None,
            format!("artifact `{artifact}` {how} by `{function}` ({bytes} bytes{checklist})"),
        ));
    }

    /// On activation an empty todo list is seeded from the checklist artifact; later,
    /// the todos completed tick the checklist's items of the same text.
    fn sync_todos(&mut self, name: &str, trigger: Trigger) {
        let Some((_, spec)) = self.function(name) else {
            return;
        };
        let Some((artifact, text)) = checklist_artifacts(spec)
            .into_iter()
            .find_map(|a| self.artifacts.get(&a).map(|t| (a, t.clone())))
        else {
            return;
        };
        match trigger {
            Trigger::Activate => {
                if !self.todos.is_empty() {
                    return;
                }
                let items: Vec<TodoItem> = artifacts::checklist(&text)
                    .into_iter()
                    .map(|i| TodoItem {
                        active_form: i.text.clone(),
                        content: i.text,
                        status: if i.done {
                            TodoStatus::Completed
                        } else {
                            TodoStatus::Pending
                        },
                    })
                    .collect();
                if items.is_empty() {
                    return;
                }
                self.events.push(event(
                    "todos",
                    name,
                    None,
                    format!(
                        "function `{name}` seeded the todo list with the {} items of `{artifact}`",
                        items.len()
                    ),
                ));
                self.todos = items.clone();
                self.todos_set = Some(items);
            }
            Trigger::ToolAfter | Trigger::Message => {
                let done: Vec<String> = self
                    .todos
                    .iter()
                    .filter(|t| t.status == TodoStatus::Completed)
                    .map(|t| t.content.clone())
                    .collect();
                if let Some(ticked) = artifacts::tick(&text, &done) {
                    self.put_artifact(&artifact, ticked, name, "ticked");
                }
            }
        }
    }
}
