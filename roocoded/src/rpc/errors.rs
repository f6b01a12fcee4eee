//! Maps daemon errors to JSON-RPC errors with the protocol's codes and messages that
//! say what to do.

use jsonrpsee::types::ErrorObjectOwned;
use roocode_protocol::error as code;

use crate::agent::AgentError;

pub fn to_rpc(e: AgentError) -> ErrorObjectOwned {
    let c = match &e {
        AgentError::NotFound(_) => code::SESSION_NOT_FOUND,
        AgentError::Ambiguous(..) => code::AMBIGUOUS_SESSION,
        AgentError::Invalid(_) => code::INVALID_REQUEST,
        AgentError::Config(_) => code::CONFIG_ERROR,
        AgentError::Store(_) => code::INTERNAL,
    };
    if c == code::INTERNAL {
        tracing::error!("{e}");
    }
    ErrorObjectOwned::owned(c, e.to_string(), None::<()>)
}
