//! How the TUI words a failed call: the daemon's message (facts only) followed by
//! what a TUI user can do about an error of that code — never a `roocode-cli`
//! command, since the user is in the TUI.

use jsonrpsee::core::ClientError;
use roocode_client::RpcFailure;
use roocode_protocol::error::RpcErrorCode;

/// The message to show for a failed call.
pub fn describe(e: &ClientError) -> String {
    match RpcFailure::of(e) {
        Some(f) => f.with_hint(hint(f.code)),
        None => e.to_string(),
    }
}

fn hint(code: RpcErrorCode) -> Option<&'static str> {
    match code {
        RpcErrorCode::SessionNotFound => Some("pick one with `roocode-tui --resume`"),
        RpcErrorCode::AmbiguousSession => Some("give more characters of the id"),
        RpcErrorCode::Busy => Some("cancel it first with Esc"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonrpsee::types::ErrorObject;

    #[test]
    fn the_tui_hint_names_no_cli_command() {
        let e = ClientError::Call(ErrorObject::owned(
            RpcErrorCode::Busy.code(),
            "cannot clear the context while a turn is running",
            None::<()>,
        ));
        assert_eq!(
            describe(&e),
            "cannot clear the context while a turn is running: cancel it first with Esc"
        );
    }
}
