//! Why a file is not a definition: [`Invalid`], each message saying what to fix, and
//! [`Located`], the same with the line it concerns.

use thiserror::Error;

use crate::frontmatter::{self, FileError};

/// What is wrong with a definition file.
#[derive(Debug, Error)]
pub(crate) enum Invalid {
    /// A shared error, as the shared module words it.
    #[error("{0}")]
    File(frontmatter::Invalid),
    #[error("{0} bytes is too large for an agent definition (at most {max}): shorten it", max = super::scan::MAX_FILE_BYTES)]
    TooLarge(u64),
    #[error(
        "no frontmatter: start the file with a line `---`, then `name: ...` and \
         `description: ...`, then a line `---` before the prompt"
    )]
    NoFrontmatter,
    #[error("no `name`: add a line `name: my-agent` to the frontmatter")]
    NoName,
    #[error(
        "name `{name}` is already used by {other} in the same folder: rename one (this file is skipped)"
    )]
    Duplicate { name: String, other: String },
}

/// The shared errors, two of them worded for agent definitions.
impl From<frontmatter::Invalid> for Invalid {
    fn from(error: frontmatter::Invalid) -> Self {
        match error {
            frontmatter::Invalid::TooLarge { size, .. } => Invalid::TooLarge(size),
            frontmatter::Invalid::NoFrontmatter => Invalid::NoFrontmatter,
            other => Invalid::File(other),
        }
    }
}

impl FileError for Invalid {}

/// An [`Invalid`] with its 1-based line in the file, when known.
pub(crate) type Located = frontmatter::Located<Invalid>;
