//! `roocode-cli agents --definitions`: the agent definitions that apply here — the
//! sub-agent types `Agent` can start, from `~/.claude/agents`, `~/.roocode/agents` and
//! the project's `.claude/agents` and `.roocode/agents` — one line each,
//! `<name>  <source>  <description>`, with what did not apply indented below it, then
//! every file that could not be loaded as `file:line: problem`. Exit status 1 when a
//! file could not be loaded. `--json`: the `agent.definitions` answer as is.

use roocode_protocol::agents::{AgentDefinitionInfo, AgentDefinitions};
use roocode_protocol::api::AgentApiClient;

use crate::connect;
use crate::failure::Failure;
use crate::output::{out, out_line};

/// Longest description shown on a line.
const MAX_DESCRIPTION: usize = 80;

/// Runs `agents --definitions`; returns the exit status.
pub async fn run(json: bool) -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::new("config", format!("cannot read the current directory: {e}")))?;
    let answer = conn
        .rpc
        .definitions(cwd.display().to_string(), roocode_client::client_env(&cwd))
        .await
        .map_err(Failure::from)?;
    if json {
        out_line(&serde_json::to_string_pretty(&answer)?);
    } else {
        out(&render(&answer));
    }
    Ok(i32::from(!answer.problems.is_empty()))
}

/// The text form.
fn render(answer: &AgentDefinitions) -> String {
    let mut text = String::new();
    if answer.definitions.is_empty() {
        text.push_str("no agent definitions (add them as .roocode/agents/<name>.md)\n");
    }
    let width = answer
        .definitions
        .iter()
        .map(|d| d.name.len())
        .max()
        .unwrap_or(0);
    for d in &answer.definitions {
        text.push_str(&line(d, width));
        for warning in &d.warnings {
            text.push_str(&format!("    note: {warning}\n"));
        }
    }
    if !answer.problems.is_empty() {
        text.push_str("not loaded:\n");
    }
    for p in &answer.problems {
        match p.line {
            Some(line) => text.push_str(&format!("  {}:{line}: {}\n", p.file, p.message)),
            None => text.push_str(&format!("  {}: {}\n", p.file, p.message)),
        }
    }
    text
}

fn line(d: &AgentDefinitionInfo, width: usize) -> String {
    let first = d.description.lines().next().unwrap_or_default();
    let mut description: String = first.chars().take(MAX_DESCRIPTION).collect();
    if first.chars().count() > MAX_DESCRIPTION {
        description.push('…');
    }
    format!("{:width$}  {}  {description}\n", d.name, d.source)
}

#[cfg(test)]
mod tests {
    use roocode_protocol::agents::DefinitionProblem;

    use super::*;

    #[test]
    fn definitions_then_problems_with_their_lines() {
        let answer = AgentDefinitions {
            definitions: vec![AgentDefinitionInfo {
                name: "reviewer".into(),
                description: "Reviews code\nin depth".into(),
                source: "project (.claude)".into(),
                path: "/p/.claude/agents/reviewer.md".into(),
                tools: Some(vec!["Read".into()]),
                disallowed_tools: Vec::new(),
                model: "sonnet".into(),
                background: false,
                warnings: vec!["`color` is not applied by RooCode".into()],
                overrides: Vec::new(),
            }],
            problems: vec![DefinitionProblem {
                file: "/p/.roocode/agents/broken.md".into(),
                line: Some(3),
                message: "no `name`".into(),
            }],
        };
        assert_eq!(
            render(&answer),
            "reviewer  project (.claude)  Reviews code\n\
             \x20   note: `color` is not applied by RooCode\n\
             not loaded:\n\
             \x20 /p/.roocode/agents/broken.md:3: no `name`\n"
        );
    }
}
