//! Config errors: every one names the file, and the line and column when the YAML parser
//! knows them, so a broken file is never silently ignored (DESIGN.md §10).

use std::path::{Path, PathBuf};

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
    /// Invalid YAML, an unknown key or a value of the wrong type.
    #[error("{}: line {line} column {column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A problem without a known position.
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

impl ConfigError {
    /// Converts a `yaml_serde` error into a `ConfigError` for `path`, moving the
    /// position to the front of the message (`file: line L column C: problem`).
    pub(crate) fn from_yaml(path: &Path, err: &yaml_serde::Error) -> Self {
        let text = err.to_string();
        match err.location() {
            Some(loc) => {
                let suffix = format!(" at line {} column {}", loc.line(), loc.column());
                let message = match text.find(&suffix) {
                    Some(at) => format!("{}{}", &text[..at], &text[at + suffix.len()..]),
                    None => text,
                };
                ConfigError::Parse {
                    path: path.to_path_buf(),
                    line: loc.line(),
                    column: loc.column(),
                    message,
                }
            }
            None => ConfigError::Invalid {
                path: path.to_path_buf(),
                message: text,
            },
        }
    }

    /// The file this error is about.
    pub fn path(&self) -> &Path {
        match self {
            ConfigError::Read { path, .. }
            | ConfigError::Parse { path, .. }
            | ConfigError::Invalid { path, .. } => path,
        }
    }
}
