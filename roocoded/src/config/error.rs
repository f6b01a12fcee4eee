//! Config errors: every one names the file, and the line and column when they are known,
//! so a broken file is never silently ignored (DESIGN.md §10). A file with several
//! problems reports them all at once ([`ConfigError::Problems`]), one per line:
//! `path:line:column: message`.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem of one config file: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong, naming the key (`permissions.mode: unknown variant ...`,
    /// ``unknown key `alow` in `permissions` ...``).
    pub message: String,
}

impl Problem {
    /// A problem of `path` at `line` and `column` (when known).
    pub fn new(path: &Path, position: Option<(usize, usize)>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line: position.map(|(line, _)| line),
            column: position.map(|(_, column)| column),
            message: message.into(),
        }
    }

    /// A `yaml_serde` error as a problem of `path`: its position taken out of the
    /// message (which ends in `at line L column C`) into `line` and `column`.
    pub(crate) fn from_yaml(path: &Path, err: &yaml_serde::Error) -> Self {
        let text = err.to_string();
        match err.location() {
            Some(loc) => {
                let suffix = format!(" at line {} column {}", loc.line(), loc.column());
                let message = match text.find(&suffix) {
                    Some(at) => format!("{}{}", &text[..at], &text[at + suffix.len()..]),
                    None => text,
                };
                Problem::new(path, Some((loc.line(), loc.column())), message)
            }
            None => Problem::new(path, None, text),
        }
    }

    /// `line:column: message` (or the message alone), without the file: for a list
    /// already headed by the file's name.
    pub fn without_path(&self) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("line {line} column {column}: {}", self.message),
            (Some(line), None) => format!("line {line}: {}", self.message),
            _ => self.message.clone(),
        }
    }
}

impl fmt::Display for Problem {
    /// `path:line:column: message`, or `path: message` without a position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// A config file could not be read or is invalid.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file of another format (`.mcp.json`) is not valid, at this position.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A problem without a known position.
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    /// Every problem found in the YAML files (at least one), in file order and, within
    /// a file, by line: broken YAML, unknown keys (with the closest valid key and the
    /// valid keys at that level) and values of the wrong type. One per line.
    #[error("{}", lines(.0))]
    Problems(Vec<Problem>),
}

fn lines(problems: &[Problem]) -> String {
    let shown: Vec<String> = problems.iter().map(Problem::to_string).collect();
    shown.join("\n")
}

impl ConfigError {
    /// A `yaml_serde` error of `path` (broken YAML, or the first problem of a section
    /// read on its own) as a one-problem error.
    pub(crate) fn from_yaml(path: &Path, err: &yaml_serde::Error) -> Self {
        ConfigError::Problems(vec![Problem::from_yaml(path, err)])
    }

    /// The file this error is about (the first one, if problems of several files are
    /// listed).
    pub fn path(&self) -> &Path {
        match self {
            ConfigError::Read { path, .. }
            | ConfigError::Parse { path, .. }
            | ConfigError::Invalid { path, .. } => path,
            ConfigError::Problems(problems) => problems
                .first()
                .map_or(Path::new(""), |problem| problem.path.as_path()),
        }
    }

    /// The error as a list of problems, whatever its kind.
    pub fn problems(&self) -> Vec<Problem> {
        match self {
            ConfigError::Read { path, source } => vec![Problem::new(
                path,
                None,
                format!("cannot read the file: {source}"),
            )],
            ConfigError::Parse {
                path,
                line,
                column,
                message,
            } => vec![Problem::new(path, Some((*line, *column)), message.clone())],
            ConfigError::Invalid { path, message } => {
                vec![Problem::new(path, None, message.clone())]
            }
            ConfigError::Problems(problems) => problems.clone(),
        }
    }
}
