//! Where the turn loop meets workflow functions (`agent::workflow`): the agent's
//! counters kept (a turn's start, each genuine user message, each model call), the
//! functions evaluated and the model told before every model call, the observers run
//! after each assistant message and each batch of tool calls, and `continue_until`
//! at the end of a turn — a continuation bounded like a stop hook's (per message and
//! per session, the last one marked `FINAL`, never while background agents run), by
//! the function's `continue_max`, and not when the agent's last two answers were the
//! same or it asked the user a question. Nothing runs for an agent without functions.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use roocode_protocol::content::{ContentBlock, Role};
use roocode_protocol::workflow::FunctionPhase;

use super::Turn;
use super::stop_hooks::FINAL_MARK;
use crate::agent::AgentError;
use crate::agent::settings::TurnSettings;
use crate::agent::workflow::Bench;
use crate::skills::SkillSet;

impl Turn<'_> {
    fn has_functions(&self) -> bool {
        self.rt.workflow.load(Ordering::SeqCst)
    }

    /// A turn starts: whether the agent has functions is read from the store, and the
    /// turn has delivered no user message yet.
    pub(super) async fn workflow_turn_start(&mut self) -> Result<(), AgentError> {
        let store = self.engine.store();
        if !self.has_functions() && !store.workflow_functions(self.id()).await?.is_empty() {
            self.rt.workflow.store(true, Ordering::SeqCst);
        }
        if self.has_functions() {
            store.count_workflow(self.id(), 0, 0, true).await?;
        }
        Ok(())
    }

    /// A genuine user message was delivered (what `user_approval` waits for); the
    /// functions' continuations start over, and an ended collaboration starts again.
    pub(super) async fn workflow_user_message(&self) -> Result<(), AgentError> {
        let store = self.engine.store();
        if self.has_functions() {
            store.count_workflow(self.id(), 0, 1, false).await?;
            store.reset_continuations(self.id()).await?;
        }
        self.engine.graph_user_message(self.id()).await
    }

    /// The `skills.auto` functions activated, with the skills read at the turn's start.
    pub(super) async fn workflow_auto(
        &mut self,
        skills: Arc<SkillSet>,
        auto: &[String],
    ) -> Result<(), AgentError> {
        let activated = self
            .engine
            .activate_auto_functions(self.id(), skills.clone(), auto, &self.rt.todos)
            .await?;
        if activated {
            self.rt.workflow.store(true, Ordering::SeqCst);
        }
        self.skills = Some(skills);
        Ok(())
    }

    async fn bench(&self) -> Result<Bench, AgentError> {
        let skills = match &self.skills {
            Some(skills) => skills.clone(),
            None => Arc::new(SkillSet::default()),
        };
        Bench::load(self.engine, self.id(), skills, self.rt.todos.snapshot()).await
    }

    /// Before the model call: gates and transitions evaluated, the model told what
    /// changed (through the inbox, delivered now), the call counted.
    pub(super) async fn workflow_before_call(&mut self) -> Result<(), AgentError> {
        // The conversation was cleared, compacted or rewound: tell everything again.
        if self.rt.skills_told.take_workflow_stale() {
            let store = self.engine.store();
            store.forget_told_functions(self.id()).await?;
            store.forget_told_graph(self.id()).await?;
        }
        if !self.has_functions() {
            return Ok(());
        }
        let mut bench = self.bench().await?;
        bench.evaluate();
        bench.tell();
        if bench.commit(self.engine, &self.rt.todos).await? {
            self.deliver_injections().await?;
        }
        self.engine
            .store()
            .count_workflow(self.id(), 1, 0, false)
            .await?;
        Ok(())
    }

    /// The assistant answered with `content`: the `message` observers run.
    pub(super) async fn workflow_after_message(
        &mut self,
        content: &[ContentBlock],
    ) -> Result<(), AgentError> {
        if !self.has_functions() {
            return Ok(());
        }
        let text = text_of(content);
        if text.trim().is_empty() {
            return Ok(());
        }
        let mut bench = self.bench().await?;
        bench.observe_message(&text);
        self.settle_workflow(bench).await
    }

    /// The iteration's tool calls ran: each call's `tool_after` observers, with the
    /// iteration's assistant text for `capture_artifact`.
    pub(super) async fn workflow_after_tools(
        &mut self,
        calls: &[crate::agent::executor::Call],
    ) -> Result<(), AgentError> {
        if !self.has_functions() {
            return Ok(());
        }
        let messages: &[roocode_protocol::content::Message] = &self.context;
        let Some(results) = messages.last().filter(|m| m.role == Role::User) else {
            return Ok(());
        };
        let assistant = messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| text_of(&m.content));
        let outputs: Vec<(String, String)> = calls
            .iter()
            .filter_map(|call| {
                results.content.iter().find_map(|b| match b {
                    ContentBlock::ToolResult {
                        tool_use_id,
                        content,
                        ..
                    } if *tool_use_id == call.id => Some((call.name.clone(), content.clone())),
                    _ => None,
                })
            })
            .collect();
        let mut bench = self.bench().await?;
        for (tool, output) in &outputs {
            bench.observe_tool(tool, output, assistant.as_deref());
        }
        self.settle_workflow(bench).await
    }

    /// Commits what observers decided; what they injected is delivered before the
    /// next model call.
    async fn settle_workflow(&mut self, bench: Bench) -> Result<(), AgentError> {
        if bench.is_settled() {
            return Ok(());
        }
        bench.commit(self.engine, &self.rt.todos).await?;
        Ok(())
    }

    /// The agent answered without a tool call: a function whose `continue_until` holds
    /// completes; one whose does not sends the agent back to work, within the bounds
    /// of the module doc. Returns whether the turn goes on.
    pub(super) async fn continue_by_functions(
        &mut self,
        settings: &TurnSettings<'_>,
    ) -> Result<bool, AgentError> {
        if !self.has_functions() {
            return Ok(false);
        }
        let mut bench = self.bench().await?;
        let mut pending = Vec::new();
        for name in bench.live() {
            if bench
                .row(&name)
                .is_none_or(|r| r.phase != FunctionPhase::Active)
            {
                continue;
            }
            let Some((holds, unmet)) = bench.done(&name) else {
                continue;
            };
            // A locked function stays: its work is never done.
            if holds && bench.row(&name).is_some_and(|r| r.locked) {
                continue;
            }
            if holds {
                if let Some(row) = bench.row_mut(&name) {
                    row.phase = FunctionPhase::Complete;
                    row.active = false;
                }
                bench.events.push(crate::agent::workflow::bench_event(
                    "phase",
                    &name,
                    Some(FunctionPhase::Complete),
                    format!("function `{name}` is complete: its continue_until holds"),
                ));
            } else {
                pending.push((name, unmet));
            }
        }
        bench.tell();
        let Some((name, unmet)) = pending.into_iter().next() else {
            self.settle_workflow(bench).await?;
            return Ok(false);
        };
        let skipped = if self.background_agents_run().await? {
            Some(
                "the session's background agents are still running: their results come first"
                    .to_string(),
            )
        } else if self.answers_repeat() {
            Some("the agent's last two answers were the same".to_string())
        } else if self.asked_a_question() {
            Some("the agent asked the user a question".to_string())
        } else {
            None
        };
        let max = bench
            .function(&name)
            .map_or(crate::skills::function::DEFAULT_CONTINUE_MAX, |(_, s)| {
                s.continue_max
            });
        let used = bench.row(&name).map_or(0, |r| r.continuations);
        let skipped = skipped.or_else(|| {
            (used >= max)
                .then(|| format!("it went on {used} time(s) already (continue_max: {max})"))
        });
        let counted = match skipped {
            Some(_) => None,
            None => self.take_continuation(
                settings.config.max_continuations_per_message(),
                settings.config.max_continuations_per_session(),
            ),
        };
        let Some((n, total)) = counted else {
            let why = skipped.unwrap_or_else(|| {
                "the continuations of this message or session are used up (continuation.max_per_message, continuation.max_per_session)".to_string()
            });
            bench.events.push(crate::agent::workflow::bench_event(
                "continuation",
                &name,
                None,
                format!("function `{name}` is not done ({}), but the agent was not sent back to work: {why}", unmet.join(", ")),
            ));
            self.settle_workflow(bench).await?;
            return Ok(false);
        };
        let count = used + 1;
        if let Some(row) = bench.row_mut(&name) {
            row.continuations = count;
        }
        let last = count >= max
            || n >= settings.config.max_continuations_per_message()
            || total >= settings.config.max_continuations_per_session();
        let mut text = format!(
            "The workflow function `{name}` is not done: it waits for {}. Go on with the work (continuation {count} of at most {max}).",
            unmet.join(", ")
        );
        if last {
            text.push('\n');
            text.push_str(FINAL_MARK);
        }
        bench.events.push(crate::agent::workflow::bench_event(
            "continuation",
            &name,
            None,
            format!("function `{name}` sent the agent back to work ({count} of at most {max})"),
        ));
        bench.injections.push(text);
        bench.commit(self.engine, &self.rt.todos).await?;
        self.deliver_injections().await?;
        self.continued += 1;
        Ok(true)
    }

    /// Whether the agent's last two answers said the same.
    fn answers_repeat(&self) -> bool {
        let mut answers = self
            .context
            .iter()
            .rev()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| text_of(&m.content));
        match (answers.next(), answers.next()) {
            (Some(a), Some(b)) => !a.trim().is_empty() && a.trim() == b.trim(),
            _ => false,
        }
    }

    /// Whether the agent's last answer ends with a question to the user.
    fn asked_a_question(&self) -> bool {
        self.context
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .is_some_and(|m| text_of(&m.content).trim_end().ends_with('?'))
    }
}

/// The text blocks of a message, joined.
fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
