//! The slash commands of one session, by name: the daemon's own, then its skills, its
//! prompt commands (`.roocode/commands`, `.claude/commands`, the user's) and its MCP
//! servers' prompts. On a name clash the first kind wins (local, skill, prompt, MCP);
//! within a kind the loaders decide (project over user, `.roocode/` over `.claude/`).
//! Every loser is still listed, saying what shadows it. The files are read at each use,
//! so a command or skill added mid-session is there at once.

use std::path::PathBuf;

use roocode_protocol::session::{ClientEnv, CommandInfo};

use super::COMMANDS;
use super::prompt::{self as prompt_files, PromptCommand};
use crate::agent::Engine;
use crate::mcp::McpPromptInfo;
use crate::skills::{self, Skill, SkillSet};
use crate::store::SessionRow;

/// What a non-local command runs.
pub(super) enum Target {
    Skill(Box<Skill>),
    Prompt(Box<PromptCommand>),
    Mcp(McpPromptInfo),
}

/// A command that runs (not shadowed).
pub(super) struct Entry {
    pub name: String,
    pub target: Target,
}

/// A session's commands (see the module doc).
pub(super) struct Catalog {
    entries: Vec<Entry>,
    infos: Vec<CommandInfo>,
}

impl Catalog {
    /// Reads the session's skills, prompt commands and MCP prompts now.
    pub async fn load(engine: &Engine, row: &SessionRow, env: &ClientEnv) -> Self {
        let user = super::user_dirs(engine, env);
        let root = PathBuf::from(&row.root);
        let files = tokio::task::spawn_blocking(move || {
            (skills::load(&user, &root), prompt_files::load(&user, &root))
        })
        .await;
        let (skill_set, prompts) = match files {
            Ok(files) => files,
            Err(e) => {
                tracing::error!("reading the session's commands failed: {e}");
                (SkillSet::default(), Default::default())
            }
        };
        let mcp = engine.mcp_prompts(row, env).await;
        Self::build(skill_set, prompts, mcp)
    }

    fn build(
        skill_set: SkillSet,
        prompts: prompt_files::PromptCommands,
        mcp: Vec<McpPromptInfo>,
    ) -> Self {
        let mut catalog = Catalog {
            entries: Vec::new(),
            infos: super::local(),
        };
        for problem in skill_set.problems.iter().chain(&prompts.problems) {
            tracing::warn!("not loaded: {problem}");
        }
        for skill in skill_set.skills {
            if !skill.user_invocable {
                continue;
            }
            let info = CommandInfo {
                name: skill.name.clone(),
                description: skill.description.clone(),
                kind: "skill".into(),
                usage: Some(usage(&skill.name, skill.argument_hint.as_deref())),
                source: Some(skill.origin()),
                shadowed_by: None,
            };
            catalog.add(info, Target::Skill(Box::new(skill)));
        }
        for lost in &skill_set.shadowed {
            let by = lost
                .by_path
                .as_ref()
                .map_or_else(|| lost.by.as_str().to_string(), |p| p.display().to_string());
            catalog.infos.push(CommandInfo {
                name: lost.name.clone(),
                description: String::new(),
                kind: "skill".into(),
                usage: None,
                source: Some(lost.path.as_ref().map_or_else(
                    || lost.source.as_str().to_string(),
                    |p| p.display().to_string(),
                )),
                shadowed_by: Some(format!("skill {} ({by})", lost.name)),
            });
        }
        for command in prompts.commands {
            let info = CommandInfo {
                name: command.name.clone(),
                description: command.description.clone(),
                kind: "prompt".into(),
                usage: Some(usage(&command.name, command.argument_hint.as_deref())),
                source: Some(command.path.display().to_string()),
                shadowed_by: None,
            };
            catalog.add(info, Target::Prompt(Box::new(command)));
        }
        for lost in &prompts.shadowed {
            catalog.infos.push(CommandInfo {
                name: lost.name.clone(),
                description: String::new(),
                kind: "prompt".into(),
                usage: None,
                source: Some(lost.path.display().to_string()),
                shadowed_by: Some(format!(
                    "prompt command {} ({})",
                    lost.name,
                    lost.by.display()
                )),
            });
        }
        for prompt in mcp {
            let info = CommandInfo {
                name: prompt.command_name(),
                description: prompt.description.clone().unwrap_or_default(),
                kind: "mcp".into(),
                usage: Some(prompt.usage()),
                source: Some(format!("MCP server {}", prompt.server)),
                shadowed_by: None,
            };
            catalog.add(info, Target::Mcp(prompt));
        }
        catalog
    }

    /// Adds a command unless one listed before has its name (then it is listed as
    /// shadowed by that one).
    fn add(&mut self, mut info: CommandInfo, target: Target) {
        if let Some(winner) = self
            .infos
            .iter()
            .find(|i| i.name == info.name && i.shadowed_by.is_none())
        {
            info.shadowed_by = Some(format!("{} /{}", kind_label(&winner.kind), winner.name));
            self.infos.push(info);
            return;
        }
        self.entries.push(Entry {
            name: info.name.clone(),
            target,
        });
        self.infos.push(info);
    }

    /// The command that runs as `/name`, if any (local commands are not here).
    pub fn find(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Every usable name, local ones first.
    pub fn names(&self) -> Vec<&str> {
        COMMANDS
            .iter()
            .map(|c| c.name)
            .chain(self.entries.iter().map(|e| e.name.as_str()))
            .collect()
    }

    /// Every command for completion and `/help`, shadowed ones marked.
    pub fn infos(self) -> Vec<CommandInfo> {
        self.infos
    }
}

fn usage(name: &str, hint: Option<&str>) -> String {
    match hint.map(str::trim).filter(|h| !h.is_empty()) {
        Some(hint) => format!("/{name} {hint}"),
        None => format!("/{name}"),
    }
}

fn kind_label(kind: &str) -> &'static str {
    match kind {
        "local" => "the built-in command",
        "skill" => "the skill",
        "prompt" => "the prompt command",
        _ => "the MCP prompt",
    }
}
