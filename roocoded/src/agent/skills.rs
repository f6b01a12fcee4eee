//! The engine's side of skills: what the model is told about them, and the skills a
//! user activates at the start of a message (rolebox's `|name|` syntax).
//!
//! - At each turn's start the session's skills are read again; when the listing the
//!   model sees (names, descriptions, when to use) differs from the one it was last
//!   given, the new listing goes through the agent's inbox as a system reminder. It is
//!   never part of the system prompt or a tool description, so the cached prefix
//!   survives a skill being added or edited.
//! - `skills.auto` skills are injected once per session (again after `/clear`, or when
//!   their instructions change).
//! - `|a|b:x|` at the start of a message activates skills: the syntax leaves the text,
//!   each skill's instructions are injected in ascending `priority`, a skill whose
//!   `requires` are not active with it is replaced by a one-line reminder, and their
//!   tools, rules and model hold for the turn.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use roocode_protocol::session::ClientEnv;

use super::workflow::StoredArgs;
use super::{AgentError, Engine};
use crate::config::Config;
use crate::skills::{self, Arguments, Skill, SkillSet, UnknownSkill};
use crate::store::{InjectionKind, SessionRow};
use crate::tools::turn_scope::TurnScope;

/// What the model has been told about a session's skills since the daemon started.
#[derive(Debug, Default)]
pub struct SkillsTold {
    /// The digest of the last listing sent (`None`: none yet).
    listing: Mutex<Option<String>>,
    /// The `skills.auto` skills injected, with a digest of the body each was injected with.
    auto: Mutex<HashMap<String, String>>,
    /// The conversation was rewritten since the workflow functions and graph were last
    /// told: they are told again (see `agent::turn::workflow`).
    workflow_stale: std::sync::atomic::AtomicBool,
}

impl SkillsTold {
    /// Whether the conversation was rewritten since the last call (and no longer).
    pub fn take_workflow_stale(&self) -> bool {
        self.workflow_stale
            .swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    /// `/clear`, a compaction, a rewind: what the model was told is gone, so the next
    /// turn tells the skills again, and the next model call the workflow.
    pub fn forget(&self) {
        self.workflow_stale
            .store(true, std::sync::atomic::Ordering::SeqCst);
        *self.listing.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.auto
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// A message with its activation syntax handled.
pub struct Activated {
    /// The text the model sees (the syntax removed).
    pub text: String,
    /// The activated skills' tools, rules and model for the turn.
    pub scope: Option<TurnScope>,
    /// Their instructions (or the reminder standing for those whose `requires` are not
    /// met), in injection order.
    pub injections: Vec<String>,
    /// The workflow functions among them, with their arguments: activated as state,
    /// their instructions told before each model call while they apply.
    pub functions: Vec<(String, StoredArgs)>,
    /// The skills read (when the message activated any).
    pub skills: Option<Arc<SkillSet>>,
    /// `|loop…|`: the built-in loop's activation, the message being its task.
    pub looping: Option<skills::Activation>,
}

/// The session's skills, read now (see `crate::commands::user_dirs`).
pub async fn load(engine: &Engine, row: &SessionRow, env: &ClientEnv) -> SkillSet {
    let user = crate::commands::user_dirs(engine, env);
    let root = PathBuf::from(&row.root);
    tokio::task::spawn_blocking(move || skills::load(&user, &root))
        .await
        .unwrap_or_else(|e| {
            tracing::error!("reading the skills failed: {e}");
            SkillSet::default()
        })
}

impl Engine {
    /// The session's skills, read now: the project's, the user's (from the client's home) and the built-ins.
    pub async fn skill_set(&self, row: &SessionRow, env: &ClientEnv) -> SkillSet {
        load(self, row, env).await
    }

    /// At a turn's start: queues the skill listing when it changed since the model last
    /// saw it, and the `skills.auto` skills not injected yet (a workflow function among
    /// them is activated by the turn instead). Returns the skills read.
    pub(super) async fn skills_turn_start(
        &self,
        row: &SessionRow,
        told: &SkillsTold,
        env: &ClientEnv,
        config: &Config,
    ) -> Result<Arc<SkillSet>, AgentError> {
        let set = load(self, row, env).await;
        for problem in &set.problems {
            tracing::warn!(session = %row.id, "skill not loaded: {problem}");
        }
        let digest = set.digest();
        let changed = {
            let mut last = told.listing.lock().unwrap_or_else(PoisonError::into_inner);
            let changed = last.as_deref() != Some(digest.as_str());
            *last = Some(digest);
            changed
        };
        if changed {
            let listing = set.listing();
            let text = if listing.is_empty() {
                // Only worth saying when the model was told of some before.
                None
            } else {
                Some(listing)
            };
            if let Some(text) = text {
                self.store
                    .queue_injection(&row.id, InjectionKind::SkillListing, &text)
                    .await?;
            }
        }
        for name in &config.skills.auto {
            let Some(skill) = set.get(name) else {
                tracing::warn!(session = %row.id, skill = %name, "skills.auto names a skill that does not exist");
                continue;
            };
            if skill.function.is_some() {
                continue;
            }
            let body = skills::substitute(&skill.body, &skill.params, &Arguments::default());
            let stamp = format!("{:x}", crate::workflow::fnv(&body));
            let fresh = {
                let mut auto = told.auto.lock().unwrap_or_else(PoisonError::into_inner);
                auto.insert(name.clone(), stamp.clone()).as_deref() != Some(stamp.as_str())
            };
            if fresh {
                let text = skill_text(skill, &body);
                self.store
                    .queue_injection(&row.id, InjectionKind::Skill, &text)
                    .await?;
            }
        }
        Ok(Arc::new(set))
    }

    /// Handles the activation syntax at the start of `text` (see the module doc); a
    /// message without it comes back as it is. A well-formed activation naming an
    /// unknown skill is an error naming the closest ones.
    pub async fn activate(
        &self,
        row: &SessionRow,
        env: &ClientEnv,
        text: &str,
    ) -> Result<Activated, AgentError> {
        let plain = || Activated {
            text: text.to_string(),
            scope: None,
            injections: Vec::new(),
            functions: Vec::new(),
            skills: None,
            looping: None,
        };
        let Some(parsed) = skills::activation::parse(text) else {
            return Ok(plain());
        };
        let set = load(self, row, env).await;
        let resolved = skills::resolve(&set, &parsed.activations)
            .map_err(|e: UnknownSkill| AgentError::Invalid(e.to_string()))?;
        if let Some((_, activation)) = resolved.iter().find(|(s, _)| is_the_loop(s)) {
            if resolved.len() > 1 {
                return Err(AgentError::Invalid(
                    "|loop| runs the rest of the message as a task in rounds: activate it alone (write the other skills' instructions into the task)".into(),
                ));
            }
            let mut activated = plain();
            activated.text = parsed.rest.trim().to_string();
            activated.looping = Some((*activation).clone());
            return Ok(activated);
        }
        let functions: Vec<(String, StoredArgs)> = resolved
            .iter()
            .filter(|(s, _)| s.function.is_some())
            .map(|(s, a)| (s.name.clone(), StoredArgs::of(a)))
            .collect();
        let active: Vec<&Skill> = resolved
            .iter()
            .map(|(s, _)| *s)
            .filter(|s| s.function.is_none())
            .collect();
        let unmet = skills::unmet_requires(&active);
        let mut injections = Vec::new();
        let mut scopes = Vec::new();
        for (skill, _) in resolved.iter().filter(|(s, _)| s.function.is_some()) {
            scopes.push(crate::tools::skill::scope_of(
                skill,
                &format!("|{}|", skill.name),
                true,
            ));
        }
        for skill in skills::by_priority(active.iter().copied()) {
            if unmet.iter().any(|(s, _)| s.name == skill.name) {
                continue;
            }
            let Some((_, activation)) = resolved.iter().find(|(s, _)| s.name == skill.name) else {
                continue;
            };
            let args = Arguments::from_activation(activation);
            let body = skills::substitute(&skill.body, &skill.params, &args);
            injections.push(skill_text(skill, &body));
            scopes.push(crate::tools::skill::scope_of(
                skill,
                &format!("|{}|", skill.name),
                true,
            ));
        }
        if let Some(reminder) = skills::order::unmet_reminder(&unmet) {
            injections.push(reminder);
        }
        let combined = crate::tools::turn_scope::combine(&scopes);
        let scope = TurnScope {
            origin: parsed
                .activations
                .iter()
                .map(|a| format!("|{}|", a.name))
                .collect::<Vec<_>>()
                .join(""),
            allowed_tools: combined.allowed_tools,
            pre_approved: combined.pre_approved,
            model: combined.model,
            skill_tools: combined.skill_tools,
            invoked_skill: None,
        };
        let rest = parsed.rest.trim();
        let text = if rest.is_empty() {
            "(The user activated the skills above without a message: follow them.)".to_string()
        } else {
            rest.to_string()
        };
        Ok(Activated {
            text,
            scope: Some(scope).filter(|s| !s.is_empty()),
            injections,
            functions,
            skills: Some(Arc::new(set)),
            looping: None,
        })
    }
}

/// Whether `skill` is the built-in `loop` (a project or user skill of that name
/// shadows it and is an ordinary skill).
fn is_the_loop(skill: &Skill) -> bool {
    skill.name == super::workflow::LOOP_SKILL && skill.source == skills::SkillSource::BuiltIn
}

/// An active skill as the model reads it.
fn skill_text(skill: &Skill, body: &str) -> String {
    format!(
        "The skill `{}` is active ({}). Follow its instructions:\n\n{}",
        skill.name,
        skill.origin(),
        body.trim_end()
    )
}
