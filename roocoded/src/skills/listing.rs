//! What the model sees of the skills before it loads one: a listing of the skills it
//! may invoke, one line each ([`SkillSet::listing`]), and a fingerprint of exactly what
//! the listing shows ([`SkillSet::digest`]), so the engine re-sends the listing only
//! when it changed (skills are rescanned at use).

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::{Skill, SkillSet};
use crate::frontmatter::values::{one_line, shorten};

/// The longest description (and when-to-use) a listing line shows, in characters.
const MAX_FIELD_CHARS: usize = 250;

impl SkillSet {
    /// The skills the model may invoke (not `disable-model-invocation`), by name.
    pub fn model_invocable(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| s.model_invocable())
    }

    /// The system-reminder text listing the model-invocable skills, one line each
    /// (`- name: description — When to use: ...`), sorted by name; "" when there are
    /// none. Equal skills give equal bytes. The caller wraps it in `<system-reminder>`.
    pub fn listing(&self) -> String {
        let mut lines = String::new();
        for skill in self.model_invocable() {
            let _ = write!(
                lines,
                "\n- {}: {}",
                skill.name,
                shorten(&one_line(&skill.description), MAX_FIELD_CHARS)
            );
            if let Some(when) = &skill.when_to_use {
                let when = shorten(&one_line(when), MAX_FIELD_CHARS);
                let _ = write!(lines, " — When to use: {when}");
            }
        }
        if lines.is_empty() {
            return String::new();
        }
        format!(
            "The following skills are available: written procedures for particular \
             tasks. When the user's request matches a skill's description, call the \
             `Skill` tool with its `name` (and, optionally, `arguments`: a string of \
             what the skill should work on) before doing the task yourself, then follow \
             the instructions it returns. Use only the names listed here.\n{lines}"
        )
    }

    /// A stable fingerprint (16 hex digits) of the name, description and when-to-use of
    /// every model-invocable skill: it changes exactly when the listing may.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for skill in self.model_invocable() {
            for field in [
                skill.name.as_str(),
                skill.description.as_str(),
                skill.when_to_use.as_deref().unwrap_or_default(),
            ] {
                hash.update(field.len().to_le_bytes());
                hash.update(field.as_bytes());
            }
        }
        hash.finalize()
            .iter()
            .take(8)
            .fold(String::new(), |mut out, b| {
                let _ = write!(out, "{b:02x}");
                out
            })
    }
}
