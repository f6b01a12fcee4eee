//! Why a Markdown file could not be read, split or its keys read ([`Invalid`], each
//! message saying what to fix), [`Located`] (such an error with its line, for the shared
//! errors or a loader's own), and [`Problem`], what a loader reports for a file it
//! skipped.
//!
//! A loader's own error wraps the shared ones ([`FileError`]), so `?` turns a shared
//! [`Located`] into the loader's.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// What is wrong with reading a file, its frontmatter, or one of its keys.
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
    #[error("`{key}` {problem}")]
    Field { key: String, problem: String },
    #[error("both `{0}` and `{1}` are given (two spellings of one key): keep one")]
    TwoSpellings(String, String),
}

/// A loader's error: it holds the shared [`Invalid`] (shown as it is, unless the loader
/// words one otherwise), so a shared [`Located`] converts into the loader's with `?`.
pub(crate) trait FileError: From<Invalid> {
    /// A bad value of a known key; `problem` completes the sentence "`key` ...".
    fn field(key: &str, problem: impl Into<String>) -> Self {
        Invalid::Field {
            key: key.to_string(),
            problem: problem.into(),
        }
        .into()
    }

    /// Two spellings of one key (`first`, then `second`) are both given.
    fn two_spellings(first: String, second: String) -> Self {
        Invalid::TwoSpellings(first, second).into()
    }

    /// A file or folder that cannot be read.
    fn read(error: std::io::Error) -> Self {
        Invalid::Read(error).into()
    }
}

/// An error (the shared [`Invalid`] unless told) with its 1-based line in the file, when
/// known.
#[derive(Debug)]
pub(crate) struct Located<E = Invalid> {
    pub line: Option<usize>,
    pub error: E,
}

impl<E> Located<E> {
    pub fn at(line: usize, error: E) -> Self {
        Self {
            line: Some(line),
            error,
        }
    }

    pub fn nowhere(error: E) -> Self {
        Self { line: None, error }
    }
}

impl<E: fmt::Display> Located<E> {
    /// The problem of `file` this error makes.
    pub fn problem(&self, file: &Path) -> Problem {
        Problem::new(file, self.line, self.error.to_string())
    }
}

impl<E: FileError> From<Located> for Located<E> {
    fn from(located: Located) -> Self {
        Self {
            line: located.line,
            error: located.error.into(),
        }
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
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}
