//! `/context`: how the session's context window is used, part by part (system prompt,
//! tool definitions, instructions, memory, messages, tool results).
//!
//! The window is the one the agent loop budgets with: the session's model resolved as
//! the loop resolves it ([`llm::context_window`]: aliases such as `anthropic/sonnet`
//! expanded, `context.window_tokens` first), so the two never disagree. The tools and
//! the system prompt are the main agent's as its turns send them (a coordinator's
//! without code tools, and the header says so).

use std::path::Path;

use crate::agent::{AgentError, Engine, prompt};
use crate::context::budget::breakdown;
use crate::llm;
use crate::memory::{MemoryDirs, index_for_prompt, load_instructions};
use crate::store::SessionRow;

/// The `/context` report of `row`'s session.
pub async fn report(engine: &Engine, row: &SessionRow) -> Result<String, AgentError> {
    let root = Path::new(&row.root);
    let config = engine.config(root)?;
    let window =
        llm::context_window(&row.model, &config).map_err(|e| AgentError::Config(e.to_string()))?;
    // The main agent's tools, as its turns send them.
    let tools = crate::agent::main_tools(engine.tools(), &config, row);
    let tools_len = serde_json::to_string(&tools.defs()).map_or(0, |s| s.len());
    let user_dir = &engine.paths().user_dir;
    let instructions = load_instructions(root, user_dir).ok().flatten();
    let memory = index_for_prompt(&MemoryDirs::new(user_dir, root));
    let messages = engine.store().context(&row.id).await?;
    let parts = breakdown(
        &prompt::system_prompt(row, prompt::Role::of(row, &config)),
        tools_len,
        instructions.as_deref(),
        memory.as_deref(),
        &messages,
    );
    let coordinator = if crate::agent::coordinating(row, &config) {
        "; coordinator mode: no code tools"
    } else {
        ""
    };
    Ok(format!(
        "Context of {} ({} messages{coordinator})\n{}",
        row.model,
        messages.len(),
        parts.render(window)
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use roocode_protocol::session::ClientEnv;

    use crate::config::Config;
    use crate::llm;

    /// The window `/context` shows is the one the loop gets from resolving the model
    /// with a key, for aliases, plain names, other providers and a configured window.
    #[test]
    fn the_report_window_is_the_loops() {
        let env = ClientEnv {
            vars: [("ANTHROPIC_API_KEY", "k"), ("OPENAI_API_KEY", "k")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let http = reqwest::Client::new();
        let plain = Config::default();
        let sized = Config::parse(Path::new("c.yaml"), "context: {window_tokens: 4000}\n").unwrap();
        for config in [&plain, &sized] {
            for spec in [
                "anthropic/sonnet",
                "sonnet",
                "anthropic/claude-haiku-4-5",
                "openai/sonnet",
                "openai/gpt-4o-mini",
                "gpt-4.1",
            ] {
                let looped = llm::resolve_model(spec, &env, config, &http)
                    .unwrap()
                    .context_window;
                assert_eq!(llm::context_window(spec, config).unwrap(), looped, "{spec}");
            }
        }
        assert_eq!(
            llm::context_window("anthropic/sonnet", &plain).unwrap(),
            200_000
        );
    }
}
