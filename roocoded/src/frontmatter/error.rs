//! Why a Markdown file could not be read or split ([`Invalid`], each message saying what
//! to fix), [`Located`] (the same with its line), and [`Problem`], what a loader reports
//! for a file it skipped.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// What is wrong with reading a file or with its frontmatter.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    #[error("a symlink whose target cannot be read ({0}): fix or remove the link")]
    BrokenLink(#[source] std::io::Error),
    #[error("{size} bytes is too large (at most {max}): shorten it")]
    TooLarge { size: u64, max: u64 },
    #[error("not UTF-8 text: save it as UTF-8")]
    NotUtf8,
    #[error(
        "no frontmatter: start the file with a line `---`, then its `key: value` lines, \
         then a line `---` before the body"
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

/// A file (or folder) that could not be loaded, and what to do about it. It never stops
/// the other files from loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    pub message: String,
}

impl Problem {
    /// A problem of `file` at `line` (if known).
    pub fn new(file: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn located(file: &Path, located: &Located) -> Self {
        Self::new(file, located.line, located.error.to_string())
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}
