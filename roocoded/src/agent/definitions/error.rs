//! Why a file is not a definition: [`Invalid`], each message saying what to fix, and
//! [`Located`], the same with the line it concerns.

use thiserror::Error;

/// What is wrong with a definition file.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    #[error("a symlink whose target cannot be read ({0}): fix or remove the link")]
    BrokenLink(#[source] std::io::Error),
    #[error("{0} bytes is too large for an agent definition (at most {max}): shorten it", max = super::scan::MAX_FILE_BYTES)]
    TooLarge(u64),
    #[error("not UTF-8 text: save it as UTF-8")]
    NotUtf8,
    #[error(
        "no frontmatter: start the file with a line `---`, then `name: ...` and \
         `description: ...`, then a line `---` before the prompt"
    )]
    NoFrontmatter,
    #[error(
        "the frontmatter opened on line 1 is never closed: add a line `---` after its last key"
    )]
    Unclosed,
    #[error("broken YAML in the frontmatter: {0}")]
    Yaml(String),
    #[error("the frontmatter must be `key: value` lines, not {0}")]
    NotMapping(&'static str),
    #[error("no `name`: add a line `name: my-agent` to the frontmatter")]
    NoName,
    #[error("`{key}` {problem}")]
    Field { key: String, problem: String },
    #[error("both `{0}` and `{1}` are given (two spellings of one key): keep one")]
    TwoSpellings(String, String),
    #[error(
        "name `{name}` is already used by {other} in the same folder: rename one (this file is skipped)"
    )]
    Duplicate { name: String, other: String },
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

/// The shared frontmatter errors, worded for agent definitions.
impl From<crate::frontmatter::Located> for Located {
    fn from(located: crate::frontmatter::Located) -> Self {
        use crate::frontmatter::Invalid as Shared;
        let error = match located.error {
            Shared::Read(e) => Invalid::Read(e),
            Shared::BrokenLink(e) => Invalid::BrokenLink(e),
            Shared::TooLarge { size, .. } => Invalid::TooLarge(size),
            Shared::NotUtf8 => Invalid::NotUtf8,
            Shared::NoFrontmatter => Invalid::NoFrontmatter,
            Shared::Unclosed => Invalid::Unclosed,
            Shared::Yaml(message) => Invalid::Yaml(message),
            Shared::NotMapping(kind) => Invalid::NotMapping(kind),
        };
        Located {
            line: located.line,
            error,
        }
    }
}
