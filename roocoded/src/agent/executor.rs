//! Runs the tool calls of one model response: each call is looked up, its input
//! validated against the tool's schema and parsed into typed arguments — once, which
//! also gives its permission facts — then checked by `permission` (the only place that
//! decides) and executed. Consecutive concurrency-safe calls run together; results
//! come back in call order, one per call, with credentials redacted (live output too)
//! before anything is stored, spilled, sent or shown.

use std::sync::Arc;
use std::time::Instant;

use roocode_protocol::content::ContentBlock;
use roocode_protocol::event::EventPayload;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::approvals::{PermissionAnswer, PermissionAsk};
use super::children::{ChildHost, ParentCall};
use super::human::CallHuman;
use super::runtime::SessionRuntime;
use super::settings::TurnSettings;
use super::summarizer::ModelSummarizer;
use super::tool_trail::{self, Trail};
use super::turn::INTERRUPTED_BY_USER;
use super::{AgentError, Engine};
use crate::memory::MemoryDirs;
use crate::permission::{Decision, PermissionGate, Scope};
use crate::recovery::Category;
use crate::tools::{
    self, CallError, PermissionTarget, Prepared, ProgressFn, ToolContext, ToolError, ToolOutput,
};

/// How many safe calls of one batch run at once.
const MAX_PARALLEL: usize = 8;

/// A tool call asked for by the model.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// The result of one call.
pub struct CallResult {
    pub block: ContentBlock,
    /// The tool does not exist or is disabled (three in a row end the turn).
    pub unknown_tool: bool,
    /// A failure recovery answers (a malformed call, a missed edit), with the exact
    /// message of the parser or matcher.
    pub failure: Option<(Category, String)>,
}

/// A call of the response with its input validated and parsed (or why it could not be).
struct Planned<'a> {
    call: &'a Call,
    prepared: Result<Prepared, CallError>,
}

impl Planned<'_> {
    /// A call that cannot be prepared runs alone, as an unknown tool always did.
    fn is_concurrency_safe(&self) -> bool {
        self.prepared.as_ref().is_ok_and(|p| p.concurrency_safe)
    }
}

/// What one call produced, before it becomes a content block and an event.
struct Outcome {
    output: ToolOutput,
    unknown_tool: bool,
    failure: Option<Category>,
    duration_ms: u64,
    /// How it went through permission (the flight recorder's row).
    trail: Trail,
}

/// Runs `calls` and returns one result per call, in call order, with the iteration's
/// `settings` (the model's context window: layer 1 keeps results small relative to
/// it; the gate is built for every batch, so an "allow always" applies at once).
pub async fn run_calls(
    engine: &Arc<Engine>,
    rt: &Arc<SessionRuntime>,
    settings: &TurnSettings<'_>,
    turn_id: &str,
    calls: &[Call],
    cancel: &CancellationToken,
) -> Result<Vec<CallResult>, AgentError> {
    let session_id = settings.session.id.as_str();
    let memory_dirs = MemoryDirs::new(
        &engine.paths.user_dir,
        std::path::Path::new(&settings.session.root),
    );
    let base = base_context(engine, rt, settings, turn_id, &memory_dirs, cancel);
    // Each input is validated and parsed once, here; the rest works on the result.
    let planned: Vec<Planned<'_>> = calls
        .iter()
        .map(|call| Planned {
            call,
            prepared: settings.agent.tools.prepare(&call.name, &call.input, &base),
        })
        .collect();
    let batch_sizes: Vec<usize> = tools::partition(&planned, Planned::is_concurrency_safe)
        .iter()
        .map(|batch| batch.len())
        .collect();
    let (live_tx, live_rx) = mpsc::unbounded_channel::<(String, String)>();
    let runner = Runner {
        engine,
        settings,
        base: &base,
        memory_dirs: &memory_dirs,
        live_tx,
        redact_on: settings.config.redact(),
        large_result_chars: crate::context::large_results::threshold_for(
            usize::try_from(settings.config.large_result_chars()).unwrap_or(usize::MAX),
            settings.model.context_window,
        ),
        cancel,
    };
    let run = async move {
        let mut results = Vec::with_capacity(calls.len());
        let mut planned = planned.into_iter();
        for size in batch_sizes {
            let batch: Vec<Planned<'_>> = planned.by_ref().take(size).collect();
            results.extend(runner.run_batch(batch).await?);
        }
        // The runner holds the live-output sender: dropping it ends the forwarding.
        drop(runner);
        Ok(results)
    };
    let (results, ()) = tokio::join!(run, forward_live_output(engine, session_id, live_rx));
    results
}

/// The context every call of this response starts from.
pub(super) fn base_context(
    engine: &Arc<Engine>,
    rt: &Arc<SessionRuntime>,
    settings: &TurnSettings<'_>,
    turn_id: &str,
    memory_dirs: &MemoryDirs,
    cancel: &CancellationToken,
) -> ToolContext {
    let (row, env, config) = (&settings.session, &settings.env, &settings.config);
    // An agent in its own git worktree works there (file tools, OS sandbox, Bash's
    // first directory); its config, memory and "allow always" rules stay the project's.
    let (root, cwd) = match &settings.agent.workspace {
        Some(worktree) => (worktree.clone(), worktree.clone()),
        None => (row.root.clone().into(), row.cwd.clone().into()),
    };
    ToolContext {
        session_id: row.id.clone(),
        scope: Scope {
            cwd: cwd.clone(),
            root: root.clone(),
            additional_dirs: config.additional_directories(),
            readable_dirs: vec![
                engine.tool_results_dir(&row.id),
                // What its workflow functions captured (`/artifacts`).
                engine.artifact_dir(&row.id),
                memory_dirs.user.clone(),
                memory_dirs.project.clone(),
            ],
        },
        cancel: cancel.clone(),
        env: env.vars.clone(),
        files: rt.files.clone(),
        turn_id: turn_id.to_string(),
        data_dir: engine.paths.data_dir.clone(),
        user_dir: engine.paths.user_dir.clone(),
        progress: None,
        human: None,
        todos: rt.todos.clone(),
        summarizer: summarizer(engine, settings, cancel),
        shell: rt.shell.clone(),
        processes: Some(engine.processes.for_session(&row.id)),
        memory_dirs: Some(memory_dirs.clone()),
        gate: None,
        agents: agent_host(engine, rt, settings, cancel),
        team: team_link(engine, settings),
        sandbox: Some(crate::sandbox::for_session(
            &engine.paths,
            &root,
            &cwd,
            &env.vars,
            config,
            &settings.sandbox,
        )),
        scopes: Some(rt.scopes.clone()),
    }
}

/// A main agent's sub-agents and teammates, or a teammate's foreground helpers
/// (sub-agents start none of their own).
fn agent_host(
    engine: &Arc<Engine>,
    rt: &Arc<SessionRuntime>,
    settings: &TurnSettings<'_>,
    cancel: &CancellationToken,
) -> Option<Arc<dyn tools::AgentHost>> {
    use roocode_protocol::session::SessionKind;
    if !matches!(
        settings.session.kind,
        SessionKind::Main | SessionKind::Teammate
    ) {
        return None;
    }
    let parent = ParentCall {
        session: settings.session.clone(),
        env: settings.env.clone(),
        config: settings.config.clone(),
        system_prompt: settings.agent.system_prompt.clone(),
        tool_names: settings.agent.tools.names().map(str::to_string).collect(),
        cancel: cancel.clone(),
        files: rt.files.clone(),
    };
    Some(Arc::new(ChildHost::new(engine.clone(), parent)))
}

/// The team of a main agent (which may lead one) or a teammate; sub-agents have none.
fn team_link(
    engine: &Arc<Engine>,
    settings: &TurnSettings<'_>,
) -> Option<Arc<dyn tools::TeamHost>> {
    use roocode_protocol::session::SessionKind;
    if !matches!(
        settings.session.kind,
        SessionKind::Main | SessionKind::Teammate
    ) {
        return None;
    }
    Some(Arc::new(super::team::TeamLink::new(
        engine.clone(),
        settings.session.clone(),
    )))
}

/// Live output of running calls becomes `tool_output` events, in arrival order, until
/// every sender is gone.
async fn forward_live_output(
    engine: &Engine,
    session_id: &str,
    mut live_rx: mpsc::UnboundedReceiver<(String, String)>,
) {
    while let Some((call_id, text)) = live_rx.recv().await {
        let ev = EventPayload::ToolOutput { call_id, text };
        if let Err(e) = engine.events().append(session_id, session_id, ev).await {
            tracing::error!("cannot record tool output: {e}");
        }
    }
}

/// What the batches of one response share.
struct Runner<'a, 't> {
    engine: &'a Arc<Engine>,
    settings: &'a TurnSettings<'t>,
    base: &'a ToolContext,
    memory_dirs: &'a MemoryDirs,
    live_tx: mpsc::UnboundedSender<(String, String)>,
    redact_on: bool,
    large_result_chars: usize,
    cancel: &'a CancellationToken,
}

impl Runner<'_, '_> {
    fn session_id(&self) -> &str {
        &self.settings.session.id
    }

    /// One batch: announced, run (at most [`MAX_PARALLEL`] at once) and recorded, in
    /// call order, under a gate built now.
    async fn run_batch(&self, batch: Vec<Planned<'_>>) -> Result<Vec<CallResult>, AgentError> {
        let gate = Arc::new(
            self.settings
                .gate()
                .with_memory_dirs(self.memory_dirs.clone()),
        );
        for Planned { call, .. } in &batch {
            let ev = EventPayload::ToolCall {
                call_id: call.id.clone(),
                name: call.name.clone(),
                input: call.input.clone(),
            };
            let id = self.session_id();
            self.engine.events().append(id, id, ev).await?;
        }
        let calls: Vec<&Call> = batch.iter().map(|p| p.call).collect();
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(batch.len());
        let mut batch = batch.into_iter();
        while batch.len() > 0 {
            let chunk: Vec<_> = batch
                .by_ref()
                .take(MAX_PARALLEL)
                .map(|planned| self.run(planned, &gate))
                .collect();
            outcomes.extend(futures_util::future::join_all(chunk).await);
        }
        let mut results = Vec::with_capacity(outcomes.len());
        for (outcome, call) in outcomes.into_iter().zip(calls) {
            results.push(self.record(outcome, call).await?);
        }
        Ok(results)
    }

    /// One call with its own live output, human and gate.
    async fn run(
        &self,
        Planned { call, prepared }: Planned<'_>,
        gate: &Arc<PermissionGate>,
    ) -> Outcome {
        let tx = self.live_tx.clone();
        let call_id = call.id.clone();
        let send = move |text: &str| {
            let _ = tx.send((call_id.clone(), text.to_string()));
        };
        // Live output is shown: redacted line by line when enabled.
        let live = self
            .redact_on
            .then(|| tools::redact::LiveSink::new(send.clone()));
        let progress = match live.clone() {
            Some(live) => ProgressFn(Arc::new(move |text: &str| live.push(text))),
            None => ProgressFn(Arc::new(send)),
        };
        let human = CallHuman {
            engine: self.engine.clone(),
            session_id: self.session_id().to_string(),
            call_id: call.id.clone(),
            mode: self.settings.session.mode,
            cancel: self.cancel.clone(),
            hooks: self.settings.hooks.clone(),
        };
        let ctx = ToolContext {
            progress: Some(progress),
            human: Some(Arc::new(human)),
            gate: Some(gate.clone()),
            ..self.base.clone()
        };
        let outcome = run_one(self.engine, gate, self.settings, &ctx, call, prepared).await;
        if let Some(live) = live {
            live.finish();
        }
        outcome
    }

    /// The result as stored, sent and shown: redacted, spilled to a file when large.
    async fn record(&self, outcome: Outcome, call: &Call) -> Result<CallResult, AgentError> {
        let mut out = outcome.output;
        // What the parser or matcher said, before layer 1 could cut it.
        let failure_text = match outcome.failure {
            Some(_) => crate::tools::output::truncate_chars(&out.content, 2_000).to_string(),
            None => String::new(),
        };
        if self.redact_on {
            redact_result(&mut out);
        }
        let id = self.session_id();
        spill_large(
            &mut out,
            self.large_result_chars,
            &self.engine.tool_results_dir(id),
            &call.id,
        );
        let shown = tools::display_text(&out.content, &out.images);
        if let Some(feed) = self.engine.replays.agent(id) {
            feed.compare(&call.id, &call.name, &shown, out.is_error)
                .await;
        }
        let ev = EventPayload::ToolResult {
            call_id: call.id.clone(),
            output: shown,
            is_error: out.is_error,
            duration_ms: outcome.duration_ms,
            diff: out.diff,
        };
        self.engine.events().append(id, id, ev).await?;
        let block = ContentBlock::ToolResult {
            tool_use_id: call.id.clone(),
            content: out.content,
            is_error: out.is_error,
            images: out.images,
        };
        let of = (
            id,
            self.base.turn_id.as_str(),
            self.settings.agent.agent_id.as_str(),
        );
        if self.settings.config.trace_recording() {
            let recorder = self.engine.recorder();
            tool_trail::record(
                recorder,
                of,
                call,
                &outcome.trail,
                &block,
                outcome.duration_ms,
            );
        }
        Ok(CallResult {
            block,
            unknown_tool: outcome.unknown_tool,
            failure: outcome.failure.map(|category| (category, failure_text)),
        })
    }
}

async fn run_one(
    engine: &Arc<Engine>,
    gate: &PermissionGate,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    prepared: Result<Prepared, CallError>,
) -> Outcome {
    let started = Instant::now();
    let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
    let mut trail = Trail::new();
    let Ran {
        output,
        unknown_tool,
        failure,
    } = execute(engine, gate, settings, ctx, call, prepared, &mut trail)
        .instrument(span)
        .await;
    // The tool's own time: what a human took to answer does not count.
    let waited = engine.approvals.human_time.take(&ctx.session_id, &call.id);
    Outcome {
        output,
        unknown_tool,
        failure,
        duration_ms: started.elapsed().saturating_sub(waited).as_millis() as u64,
        trail,
    }
}

/// What one call did: its output, whether its tool is unknown, what recovery makes of
/// its failure.
struct Ran {
    output: ToolOutput,
    unknown_tool: bool,
    failure: Option<Category>,
}

impl Ran {
    fn output(output: ToolOutput) -> Self {
        Ran {
            output,
            unknown_tool: false,
            failure: None,
        }
    }

    /// The call was cancelled before or while it ran.
    fn cancelled(&self) -> bool {
        self.output.is_error && self.output.content == INTERRUPTED_BY_USER
    }
}

async fn execute(
    engine: &Arc<Engine>,
    gate: &PermissionGate,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    prepared: Result<Prepared, CallError>,
    trail: &mut Trail,
) -> Ran {
    let replay = engine.replays.agent(&ctx.session_id);
    if let Some(feed) = &replay
        && let Some(recorded) = feed.recorded_result(&call.id, &call.name).await
    {
        trail.replayed();
        return Ran::output(recorded);
    }
    let prepared = match prepared {
        Err(CallError::UnknownTool { .. }) => {
            let known: Vec<String> = settings
                .agent
                .tools
                .defs()
                .into_iter()
                .map(|d| d.name.to_string())
                .collect();
            let text = format!(
                "Unknown tool `{}`. The available tools are: {}.",
                call.name,
                known.join(", ")
            );
            return Ran {
                unknown_tool: true,
                ..Ran::output(ToolOutput::error(text))
            };
        }
        Err(e @ CallError::NotForThisAgent { .. }) => {
            return Ran {
                unknown_tool: true,
                ..Ran::output(ToolOutput::error(e.to_string()))
            };
        }
        _ if ctx.cancel.is_cancelled() => {
            return Ran::output(ToolOutput::error(INTERRUPTED_BY_USER));
        }
        Err(e @ CallError::InvalidInput(_)) => {
            return Ran {
                failure: Some(e.category()),
                ..Ran::output(ToolOutput::error(e.to_string()))
            };
        }
        Ok(prepared) => prepared,
    };
    let decided = tool_trail::gate_answer(ctx, gate, &prepared.call(&call.input));
    trail.decided(&decided.decision, decided.by);
    if let Some(feed) = &replay {
        // The recording answered what was asked and its hooks ran; a deny stands.
        let unsandboxed = trail.decided_by["layer"] == "os_sandbox";
        let permitted = feed
            .permit(&call.id, &call.name, &decided.decision, unsandboxed)
            .await;
        if let Err(denied) = permitted {
            trail.stopped = Some("denied");
            return Ran::output(denied);
        }
        return run_prepared(prepared, ctx, trail).await;
    }
    let (prepared, input, decision) = match super::tool_hooks::pre_tool_use(
        engine,
        settings,
        ctx,
        call,
        prepared,
        decided.decision,
    )
    .await
    {
        Ok(checked) => checked,
        Err(refused) => {
            trail.hook_blocked(&refused.content);
            return Ran::output(refused);
        }
    };
    trail.hook_changed(&decision, None);
    match decision {
        Decision::Allow => {}
        Decision::Deny { reason } => {
            tracing::info!(%reason, "denied");
            trail.stopped = Some("denied");
            return Ran::output(ToolOutput::error(format!("Permission denied: {reason}")));
        }
        Decision::Ask { reason } => {
            let facts = prepared.call(&input);
            let asked = Ask {
                facts: &facts,
                reason: &reason,
            };
            if let Err(refused) = approve(engine, gate, settings, ctx, call, asked, trail).await {
                return Ran::output(refused);
            }
        }
    }
    let ran = run_prepared(prepared, ctx, trail).await;
    if ran.cancelled() {
        return ran;
    }
    super::tool_hooks::post_tool_use(engine, settings, ctx, call, &input, &ran.output).await;
    ran
}

/// Runs a call the gate (and the human, and the hooks) let through.
async fn run_prepared(prepared: Prepared, ctx: &ToolContext, trail: &mut Trail) -> Ran {
    let result = tokio::select! {
        r = prepared.run(ctx) => r,
        _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
    };
    match result {
        Ok(out) => Ran::output(out),
        Err(ToolError::Cancelled) => {
            trail.stopped = Some("cancelled");
            Ran::output(ToolOutput::error(INTERRUPTED_BY_USER))
        }
        // A plain tool failure goes to the model as it is; recovery answers the rest.
        Err(e) => {
            let failure = e.category().filter(|c| *c != Category::ToolFailure);
            Ran {
                failure,
                ..Ran::output(e.into_output())
            }
        }
    }
}

/// What the gate asks about.
struct Ask<'a> {
    facts: &'a crate::permission::Call<'a>,
    reason: &'a str,
}

/// Asks the human about a call the gate could not decide; `Err` is the result the
/// model gets instead of the call's. `trail` learns the answer.
async fn approve(
    engine: &Arc<Engine>,
    gate: &PermissionGate,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    Ask { facts, reason }: Ask<'_>,
    trail: &mut Trail,
) -> Result<(), ToolOutput> {
    let answer = ask_human(engine, gate, settings, ctx, call, facts, reason).await;
    trail.answered_by = Some(answer.0.to_string());
    if answer.1.is_err() {
        trail.stopped = Some(if answer.0 == "cancelled" {
            "cancelled"
        } else {
            "denied"
        });
    }
    answer.1
}

/// The answer to the question `approve` asks, named (`hook_allow`, `allow_once`,
/// `allow_always`, `deny`, `cancelled`, `not_asked`).
async fn ask_human(
    engine: &Arc<Engine>,
    gate: &PermissionGate,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
    call: &Call,
    facts: &crate::permission::Call<'_>,
    reason: &str,
) -> (&'static str, Result<(), ToolOutput>) {
    let tool = facts.tool;
    if let Some(answer) = super::tool_hooks::permission_request(engine, settings, call, tool).await
    {
        let name = if answer.is_ok() {
            "hook_allow"
        } else {
            "hook_deny"
        };
        return (name, answer);
    }
    let summary = summarize(facts.target, ctx, tool);
    super::tool_hooks::notify(
        engine,
        settings,
        &super::tool_hooks::permission_message(tool, &summary),
        crate::hooks::HookInput::PERMISSION_PROMPT,
    );
    let ask = PermissionAsk {
        session_id: &ctx.session_id,
        call_id: &call.id,
        tool,
        input: &call.input,
        summary: &summary,
        reason,
    };
    match engine.approvals.ask_permission(ask, &ctx.cancel).await {
        Ok(PermissionAnswer::Allow) => ("allow_once", Ok(())),
        Ok(PermissionAnswer::AllowAlways) => {
            remember(tool, facts.target, gate, settings, ctx);
            ("allow_always", Ok(()))
        }
        Ok(PermissionAnswer::Deny { feedback }) => ("deny", Err(ToolOutput::error(match feedback {
            Some(f) if !f.trim().is_empty() => {
                format!("Permission denied: the user refused this call and said: {f}")
            }
            _ => "Permission denied: the user refused this call. Do not retry it; choose another way or ask the user.".to_string(),
        }))),
        Ok(PermissionAnswer::Cancelled) => ("cancelled", Err(ToolOutput::error(INTERRUPTED_BY_USER))),
        Err(e) => {
            tracing::error!("cannot ask for permission: {e}");
            let refused = ToolOutput::error(format!(
                "Permission denied: the approval could not be asked for ({e})"
            ));
            ("not_asked", Err(refused))
        }
    }
}

/// One line for the approval prompt: the command, the path or the URL.
fn summarize(target: &PermissionTarget, ctx: &ToolContext, tool: &str) -> String {
    match target {
        PermissionTarget::Command(c) => c.clone(),
        PermissionTarget::Path { path, .. } => path
            .strip_prefix(&ctx.scope.root)
            .unwrap_or(path)
            .display()
            .to_string(),
        PermissionTarget::Url(u) => u.clone(),
        PermissionTarget::None => tool.to_string(),
    }
}

/// "Allow always": appends the call's allow rule (paths relative to the agent's
/// workspace) to the project's local config — the session's root, never an agent's
/// worktree — and to the turn's, so it applies at once. A protected file is asked
/// every time, so its approval is for this call only.
fn remember(
    tool: &str,
    target: &PermissionTarget,
    gate: &PermissionGate,
    settings: &TurnSettings<'_>,
    ctx: &ToolContext,
) {
    if let Some(why) = gate.protected_write(target, &ctx.scope) {
        tracing::info!("allowed once, not remembered: a protected file ({why})");
        return;
    }
    let rule = crate::permission::persist::rule_for(tool, target, &ctx.scope.root);
    let project = std::path::Path::new(&settings.session.root);
    match crate::permission::persist::append_allow_rule(project, &rule) {
        Ok(()) => {
            tracing::info!(%rule, "allow rule added to .roocode/config.local.yaml");
            settings.allow_rule(&rule);
        }
        Err(e) => tracing::error!(%rule, "cannot add the allow rule: {e}"),
    }
}

/// WebFetch's page reader: the session's model, with the client's keys.
fn summarizer(
    engine: &Engine,
    settings: &TurnSettings<'_>,
    cancel: &CancellationToken,
) -> Option<Arc<dyn tools::Summarizer>> {
    let row = &settings.session;
    Some(Arc::new(ModelSummarizer {
        policy: settings.retry.clone(),
        model: settings.model.clone(),
        cancel: cancel.clone(),
        store: engine.store().clone(),
        session_id: row.id.clone(),
        agent_id: settings.agent.agent_id.clone(),
        redact: settings.config.redact(),
    }))
}

/// Credentials in a result (and in its diff) become `[redacted: <kind>]` before it is
/// stored, spilled, sent or shown (`security.redact`, tools/redact.rs).
fn redact_result(out: &mut ToolOutput) {
    if let Some(text) = tools::redact::redact_output(&out.content) {
        tracing::info!("credentials redacted from a tool result");
        out.content = text;
    }
    if let Some(diff) = &mut out.diff {
        let redacted = tools::redact::redact(diff);
        if !redacted.is_clean() {
            *diff = redacted.text;
        }
    }
}

/// Layer 1 of context management: a result over the threshold goes to a file the
/// model can page through with `Read`; the conversation keeps a preview.
fn spill_large(out: &mut ToolOutput, threshold: usize, dir: &std::path::Path, call_id: &str) {
    match crate::context::large_results::spill(&out.content, threshold, dir, call_id) {
        Ok(spilled) => {
            if let Some(path) = &spilled.path {
                tracing::info!(path = %path.display(), chars = out.content.len(), "large tool result saved to a file");
            }
            out.content = spilled.text;
        }
        Err(e) => {
            tracing::warn!("cannot save a large tool result ({e}); keeping its start and end");
            out.content = crate::context::large_results::unsaved_preview(
                &out.content,
                threshold,
                &e.to_string(),
            );
        }
    }
}

#[cfg(test)]
#[path = "executor_tests.rs"]
mod tests;
