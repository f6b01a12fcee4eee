//! Why a request to the engine failed.

use crate::store::StoreError;

/// Why a request to the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no session matches `{0}`: list them with `roocode-cli sessions`")]
    NotFound(String),
    #[error("`{0}` matches several sessions ({1}): give more characters of the id")]
    Ambiguous(String, String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}
