//! Why a request to the engine failed.

use crate::store::StoreError;

/// Why a request to the engine failed. Messages state facts only: each client adds
/// the hint that fits its user from the RPC error code (`rpc::errors`).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no session matches `{0}`")]
    NotFound(String),
    #[error("`{0}` matches several sessions ({1})")]
    Ambiguous(String, String),
    #[error("{0}")]
    Invalid(String),
    /// The session runs a turn and the request needs it idle (what it wanted to do).
    #[error("cannot {0} while a turn is running")]
    Busy(String),
    /// No permission request or question waits under this id.
    #[error("{}", if *.answered { format!("request {id} was already answered (or its turn ended)") } else { format!("no pending request {id}") })]
    RequestNotFound { id: String, answered: bool },
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}
