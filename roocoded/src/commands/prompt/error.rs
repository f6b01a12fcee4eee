//! Why a file is not a prompt command: [`Invalid`], each message saying what to fix,
//! and [`Located`], the same with the line it concerns.

use thiserror::Error;

use crate::frontmatter::{self, FileError};

/// What is wrong with a prompt command file.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    #[error("{0}")]
    File(#[from] frontmatter::Invalid),
    #[error(
        "`{name}` is not a command name (lowercase letters, digits, `_` and `-`; a \
         subfolder adds `name:`): rename the {what} `{part}` to `{suggestion}`"
    )]
    BadName {
        name: String,
        what: &'static str,
        part: String,
        suggestion: String,
    },
    #[error("`{0}`: the file or folder name is not UTF-8: rename it")]
    NotUtf8(String),
    #[error(
        "the command `/{name}` is already defined by {other} in the same folder: rename one \
         (this one is skipped)"
    )]
    Duplicate { name: String, other: String },
    #[error("folders nested deeper than {0} levels are not read: flatten them")]
    TooDeep(usize),
}

impl FileError for Invalid {}

/// An [`Invalid`] with its 1-based line in the file, when known.
pub(crate) type Located = frontmatter::Located<Invalid>;

/// A valid name part made from `part`: lowercase, other characters `-`, runs of `-`
/// joined, trimmed of `-` (and `_`) at the start.
pub(crate) fn suggest_part(part: &str) -> String {
    let mut out = String::new();
    for c in part.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_start_matches(['-', '_']).trim_end_matches('-');
    if out.is_empty() {
        "my-command".to_string()
    } else {
        out.to_string()
    }
}
