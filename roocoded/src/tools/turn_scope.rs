//! What a slash command or a skill sets for the rest of the turn it runs in
//! ([`TurnScope`]): RooCode's `allowed_tools` narrowing the agent's tools, Claude Code's
//! `allowed-tools` pre-approving permission rules, a model for the turn. A scope comes
//! with the message a command queued (stored with it, so it survives a restart) or from
//! a `Skill` call during the turn; the turn collects them in [`TurnScopes`] and drops
//! them when it ends, which restores the agent's own tools, rules and model.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::ToolSet;
use crate::skills::SkillTool;

/// One command's or skill's settings for the turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnScope {
    /// Who set it, for messages: `/review`, `skill commit`.
    pub origin: String,
    /// The tools the agent keeps (RooCode's `allowed_tools`); `None`: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// Permission rules allowed without asking while it runs (Claude Code's
    /// `allowed-tools`, e.g. `Bash(git add:*)`). They never undo a deny of layers 1–3.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre_approved: Vec<String>,
    /// The model for the rest of the turn (`provider/model` or an alias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tools of the skill's `tool.json`, offered while it runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skill_tools: Vec<ScopedSkillTool>,
    /// The fork skill the user ran (`/name`): the `Skill` call that starts it in this
    /// turn grants what a user's invocation grants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoked_skill: Option<String>,
}

/// One tool a skill brings for the turn it runs in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScopedSkillTool {
    pub skill: String,
    /// The skill's folder (the tool's program may be a file in it).
    pub dir: PathBuf,
    pub tool: SkillTool,
}

impl TurnScope {
    /// Nothing to change.
    pub fn is_empty(&self) -> bool {
        self.allowed_tools.is_none()
            && self.pre_approved.is_empty()
            && self.model.is_none()
            && self.skill_tools.is_empty()
            && self.invoked_skill.is_none()
    }

    /// Whether the user ran the skill `name` in this turn (see `invoked_skill`).
    pub fn invoked(scopes: &[TurnScope], name: &str) -> bool {
        scopes
            .iter()
            .any(|s| s.invoked_skill.as_deref() == Some(name))
    }

    /// As stored with a queued message.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A stored scope; an unreadable one (a newer daemon's) is no scope.
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

/// The scopes in force in a session's running turn, oldest first.
#[derive(Debug, Default)]
pub struct TurnScopes(Mutex<Vec<TurnScope>>);

impl TurnScopes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<TurnScope>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a scope for the rest of the turn (an empty one changes nothing).
    pub fn push(&self, scope: TurnScope) {
        if !scope.is_empty() {
            self.lock().push(scope);
        }
    }

    /// The turn ended: the agent's own tools, rules and model again.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// The scopes now in force.
    pub fn current(&self) -> Vec<TurnScope> {
        self.lock().clone()
    }
}

/// The combined effect of several scopes: tools narrowed to what every narrowing scope
/// keeps, the rules of all, the latest model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Combined {
    pub allowed_tools: Option<Vec<String>>,
    pub pre_approved: Vec<String>,
    pub model: Option<String>,
    /// The skills' own tools, each once.
    pub skill_tools: Vec<ScopedSkillTool>,
}

/// Combines `scopes` (see [`Combined`]).
pub fn combine(scopes: &[TurnScope]) -> Combined {
    let mut out = Combined::default();
    for scope in scopes {
        if let Some(allowed) = &scope.allowed_tools {
            out.allowed_tools = Some(match out.allowed_tools.take() {
                None => allowed.clone(),
                Some(kept) => kept.into_iter().filter(|t| allowed.contains(t)).collect(),
            });
        }
        for rule in &scope.pre_approved {
            if !out.pre_approved.contains(rule) {
                out.pre_approved.push(rule.clone());
            }
        }
        if scope.model.is_some() {
            out.model.clone_from(&scope.model);
        }
        for tool in &scope.skill_tools {
            if !out
                .skill_tools
                .iter()
                .any(|t| t.skill == tool.skill && t.tool.name == tool.tool.name)
            {
                out.skill_tools.push(tool.clone());
            }
        }
    }
    out
}

/// `tools` narrowed to `allowed` (a tool named as Claude Code's rules name it, such as
/// `Bash(git diff:*)`, counts as its tool). The `Skill` tool stays, so the agent can
/// still finish the skill it runs; a narrowing that would leave no tool at all keeps
/// sending the full array (a history holding tool calls needs one) while refusing
/// every call outside `allowed`.
pub fn narrow(tools: ToolSet, allowed: &[String]) -> ToolSet {
    let names: Vec<String> = allowed
        .iter()
        .map(|a| a.split('(').next().unwrap_or(a).trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    tools.narrowed(&names)
}

/// `tools` with the skills' own `tools` added; one that cannot be offered is left out
/// (and logged).
pub fn with_skill_tools(tools: ToolSet, skill_tools: &[ScopedSkillTool]) -> ToolSet {
    let adapters = skill_tools
        .iter()
        .filter_map(
            |t| match super::SkillCommandTool::new(&t.skill, &t.dir, t.tool.clone()) {
                Ok(tool) => Some(Arc::new(tool) as Arc<dyn super::Tool>),
                Err(e) => {
                    tracing::warn!("{e}");
                    None
                }
            },
        )
        .collect();
    tools.with_tools(adapters)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(allowed: Option<&[&str]>, rules: &[&str], model: Option<&str>) -> TurnScope {
        TurnScope {
            origin: "/x".into(),
            allowed_tools: allowed.map(|a| a.iter().map(|s| s.to_string()).collect()),
            pre_approved: rules.iter().map(|s| s.to_string()).collect(),
            model: model.map(str::to_string),
            ..TurnScope::default()
        }
    }

    #[test]
    fn scopes_combine_by_intersection_union_and_latest() {
        let c = combine(&[
            scope(Some(&["Read", "Grep", "Bash"]), &["Bash(git add:*)"], None),
            scope(
                Some(&["Read", "Bash"]),
                &["Bash(git add:*)", "Read"],
                Some("m/a"),
            ),
            scope(None, &[], Some("m/b")),
        ]);
        assert_eq!(
            c.allowed_tools,
            Some(vec!["Read".to_string(), "Bash".to_string()])
        );
        assert_eq!(c.pre_approved, vec!["Bash(git add:*)", "Read"]);
        assert_eq!(c.model.as_deref(), Some("m/b"));
        assert_eq!(combine(&[]), Combined::default());
    }

    #[test]
    fn a_scope_round_trips_and_empty_ones_are_dropped() {
        let s = scope(Some(&["Read"]), &["Bash(ls)"], Some("m/a"));
        assert_eq!(TurnScope::from_json(&s.to_json()), Some(s.clone()));
        assert_eq!(TurnScope::from_json("not json"), None);
        let scopes = TurnScopes::default();
        scopes.push(TurnScope::default());
        assert!(scopes.current().is_empty());
        scopes.push(s.clone());
        assert_eq!(scopes.current(), vec![s]);
        scopes.clear();
        assert!(scopes.current().is_empty());
    }
}
