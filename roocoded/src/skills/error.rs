//! Why a file is not a skill: [`Invalid`], each message saying what to fix, and
//! [`Located`], the same with the line it concerns.

use thiserror::Error;

use crate::frontmatter::{self, FileError};

/// What is wrong with a skill file.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    #[error("{0}")]
    File(#[from] frontmatter::Invalid),
    #[error("`mode: {mode}` and `context: {context}` disagree: keep one of them")]
    ModeConflict { mode: String, context: String },
    #[error(
        "`name: {name}` is not a skill name: use lowercase letters, digits and `-`, starting \
         with a letter, at most 64 (e.g. `{suggestion}`)"
    )]
    BadName { name: String, suggestion: String },
    #[error(
        "the {what} name `{name}` is not a skill name (lowercase letters, digits and `-`, \
         starting with a letter): rename it to `{suggestion}`, or give the skill a \
         `name: {suggestion}` in its frontmatter"
    )]
    BadFileName {
        what: &'static str,
        name: String,
        suggestion: String,
    },
    #[error(
        "the skill `{name}` is already defined by {other} in the same folder: rename one \
         (this one is skipped)"
    )]
    Duplicate { name: String, other: String },
    #[error("`SKILL.md` must be spelled in capitals: rename `{0}` to `SKILL.md`")]
    SkillFileCase(String),
}

impl FileError for Invalid {}

/// An [`Invalid`] with its 1-based line in the file, when known.
pub(crate) type Located = frontmatter::Located<Invalid>;

/// A valid skill (or command) name made from `name`: lowercase, other characters `-`,
/// runs of `-` joined, leading characters that are not letters dropped.
pub(crate) fn suggest_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_start_matches(|c: char| !c.is_ascii_lowercase());
    let out = out.trim_end_matches('-');
    let out: String = out.chars().take(super::MAX_NAME_LEN).collect();
    if out.is_empty() {
        "my-skill".to_string()
    } else {
        out.trim_end_matches('-').to_string()
    }
}
