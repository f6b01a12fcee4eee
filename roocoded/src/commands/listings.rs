//! The reports of `/skills`, `/agents`, `/permissions`, `/hooks` and `/resume`: what a
//! session has, where each piece is defined, and what is shadowed or broken. Files
//! are read at each call (nothing is cached), from the project and the client's home.
//! `/permissions` lists each rule with the file and line it is written at.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use roocode_protocol::Mode;
use roocode_protocol::session::ClientEnv;

use super::user_dirs;
use crate::agent::{AgentError, Engine, definitions};
use crate::config::{Config, RuleKind};
use crate::skills::SkillMode;
use crate::store::SessionRow;

/// `/skills`: every skill with its source and mode, then the shadowed and the broken.
pub async fn skills(
    engine: &Engine,
    row: &SessionRow,
    env: &ClientEnv,
) -> Result<String, AgentError> {
    let set = engine.skill_set(row, env).await;
    let mut out = String::new();
    if set.skills.is_empty() {
        out.push_str("No skills.");
    }
    for s in &set.skills {
        let mode = match s.mode {
            SkillMode::Inline => "inline",
            SkillMode::Fork => "fork",
        };
        let mut flags = Vec::new();
        if !s.model_invocable() {
            flags.push("user only");
        }
        if !s.user_invocable {
            flags.push("model only");
        }
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(", {}", flags.join(", "))
        };
        let _ = writeln!(
            out,
            "/{:<16} {} ({}, {mode}{flags}) — {}",
            s.name,
            s.description,
            s.source.as_str(),
            s.origin()
        );
    }
    for lost in &set.shadowed {
        let by = lost
            .by_path
            .as_ref()
            .map_or_else(|| lost.by.as_str().to_string(), |p| shown(p));
        let from = lost
            .path
            .as_ref()
            .map_or_else(|| lost.source.as_str().to_string(), |p| shown(p));
        let _ = writeln!(out, "shadowed: {} ({from}) by {by}", lost.name);
    }
    for problem in &set.problems {
        let _ = writeln!(out, "not loaded: {problem}");
    }
    out.push_str(
        "\nRun one with /name [arguments], or activate it at the start of a message with |name|.",
    );
    Ok(out.trim_end().to_string())
}

/// `/agents`: the sub-agent types this session can start.
pub async fn agents(
    engine: &Engine,
    row: &SessionRow,
    env: &ClientEnv,
) -> Result<String, AgentError> {
    let user = user_dirs(engine, env);
    let root = PathBuf::from(&row.root);
    let loaded = tokio::task::spawn_blocking(move || definitions::load(&user, &root))
        .await
        .map_err(|e| AgentError::Invalid(format!("cannot read the agent definitions: {e}")))?;
    let mut out = String::from("Built in: Explore, Plan, general-purpose.\n");
    for d in &loaded.definitions {
        let _ = writeln!(
            out,
            "{:<18} {} — {}",
            d.name,
            d.description.lines().next().unwrap_or_default(),
            shown(&d.path)
        );
    }
    for p in &loaded.problems {
        let _ = writeln!(out, "not loaded: {p}");
    }
    out.push_str(
        "\nDefinitions live in .roocode/agents/*.md and .claude/agents/*.md (project) and ~/.roocode/agents, ~/.claude/agents (user). roocode-cli agents lists the running ones.",
    );
    Ok(out)
}

/// `/permissions`: the mode and the merged rules, as the next turn applies them.
pub async fn permissions(engine: &Engine, row: &SessionRow) -> Result<String, AgentError> {
    let config = engine.config(Path::new(&row.root))?;
    Ok(permissions_report(row.mode, &config))
}

/// The report of `/permissions`: each rule on its line with where it is written
/// (`file:line`, and the other places that say it too), deny first.
fn permissions_report(mode: Mode, config: &Config) -> String {
    let p = &config.permissions;
    let mut out = format!("Mode: {mode}.\n");
    for kind in RuleKind::BY_PRECEDENCE {
        let rules = p.rules(kind);
        if rules.is_empty() {
            let _ = writeln!(out, "{}: none", kind.as_str());
            continue;
        }
        let _ = writeln!(out, "{}:", kind.as_str());
        for rule in rules {
            let places: Vec<String> = p
                .origins
                .all(kind, rule)
                .iter()
                .map(ToString::to_string)
                .collect();
            let at = match places.split_first() {
                None => String::new(),
                Some((first, [])) => format!("  — {first}"),
                Some((first, more)) => format!("  — {first} (also {})", more.join(", ")),
            };
            let _ = writeln!(out, "  {rule}{at}");
        }
    }
    let dirs = config.additional_directories();
    if !dirs.is_empty() {
        let list: Vec<String> = dirs.iter().map(|d| shown(d)).collect();
        let _ = writeln!(out, "additional directories: {}", list.join(", "));
    }
    let files: Vec<String> = config.sources.iter().map(|s| shown(s)).collect();
    let _ = write!(
        out,
        "From: {}.\nDeny wins over ask, ask over allow; built-in protections (credentials, protected files, dangerous commands) apply whatever the rules say.",
        if files.is_empty() {
            "no config file".to_string()
        } else {
            files.join(", ")
        }
    );
    out
}

/// `/hooks`: every configured hook, where it is, whether it runs, its last result.
pub async fn hooks(
    engine: &Engine,
    row: &SessionRow,
    env: &ClientEnv,
) -> Result<String, AgentError> {
    Ok(engine.hook_list(&row.cwd, env).await?.table())
}

/// `/resume`: how to get back to another session from here.
pub fn resume() -> String {
    "To resume a session: roocode-cli sessions lists them, roocode-cli attach <id> follows one, roocode-cli send -s <id> \"…\" continues it; in the TUI /resume opens the session picker.".to_string()
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn permissions_lists_each_rule_with_its_file_and_line() {
        let user = Path::new("/home/u/.roocode/config.yaml");
        let project = Path::new("/p/.roocode/config.yaml");
        let mut config = Config::parse(
            user,
            "model: a/b\npermissions:\n  allow:\n    - Read(src/**)\n  deny: [\"Bash(curl *)\"]\n",
        )
        .unwrap();
        config.merge(
            Config::parse(
                project,
                "permissions:\n  allow: [\"Bash(git diff:*)\",\n    \"Read(src/**)\"]\n",
            )
            .unwrap(),
        );
        let report = permissions_report(Mode::Default, &config);
        let expected = "Mode: default.\n\
             deny:\n  Bash(curl *)  — /home/u/.roocode/config.yaml:5\n\
             ask: none\n\
             allow:\n  Read(src/**)  — /home/u/.roocode/config.yaml:4 (also /p/.roocode/config.yaml:3)\n  \
             Bash(git diff:*)  — /p/.roocode/config.yaml:2\n\
             From: /home/u/.roocode/config.yaml, /p/.roocode/config.yaml.\n";
        assert!(report.starts_with(expected), "{report}");
    }
}
