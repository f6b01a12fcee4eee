//! Why a file is not a skill: [`Invalid`], each message saying what to fix, and
//! [`Located`], the same with the line it concerns.

use std::path::Path;

use thiserror::Error;

use super::Problem;

/// What is wrong with a skill file.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    #[error("{0}")]
    File(#[from] crate::frontmatter::Invalid),
    #[error("`{key}` {problem}")]
    Field { key: String, problem: String },
    #[error("both `{0}` and `{1}` are given (two spellings of one key): keep one")]
    TwoSpellings(String, String),
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

impl Invalid {
    /// A bad value of a known key; `problem` completes the sentence "`key` ...".
    pub fn field(key: &str, problem: impl Into<String>) -> Self {
        Invalid::Field {
            key: key.to_string(),
            problem: problem.into(),
        }
    }
}

/// An [`Invalid`] with its 1-based line in the file, when known.
#[derive(Debug)]
pub(crate) struct Located {
    pub line: Option<usize>,
    pub error: Invalid,
}

impl Located {
    pub fn at(line: usize, error: Invalid) -> Self {
        Self {
            line: Some(line),
            error,
        }
    }

    pub fn nowhere(error: Invalid) -> Self {
        Self { line: None, error }
    }

    pub fn problem(&self, file: &Path) -> Problem {
        Problem::new(file, self.line, self.error.to_string())
    }
}

impl From<crate::frontmatter::Located> for Located {
    fn from(located: crate::frontmatter::Located) -> Self {
        Self {
            line: located.line,
            error: Invalid::File(located.error),
        }
    }
}

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
