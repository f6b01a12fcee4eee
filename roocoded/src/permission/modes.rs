//! Layer 4, the session mode (DESIGN §8), for calls that layers 1–3 left undecided:
//!
//! | mode | read-only tool | file edit in the sandbox | network (WebFetch) | command, other | plan file write |
//! | --- | --- | --- | --- | --- | --- |
//! | `default` | allow | ask | ask | ask | ask |
//! | `acceptEdits` | allow | allow | ask | ask | allow |
//! | `plan` | allow | ask | ask | ask | allow |
//! | `bypassPermissions` | allow | allow | allow | allow | allow |
//! | `dontAsk` | allow | deny | deny | deny | deny |
//!
//! An MCP tool is "other" whatever its server's `readOnlyHint` says (a program that
//! may lie): only a rule allows it without asking.
//!
//! A network tool is read-only on disk but sends whatever its URL carries, so it is
//! asked like a command (per domain: "allow always" writes `WebFetch(domain:…)`); local
//! addresses ask even in `bypassPermissions` ([`super::network`]).
//! `dontAsk` also turns every ask of the other layers (ask rules, commands the parser
//! cannot see through) into a deny; see [`ask`].

use super::{Call, Decision, Effect, PermissionTarget};

pub use roocode_protocol::Mode;

/// The mode's answer for a call that passed layers 1–3 without a verdict.
/// `plan_file` is true when the call writes the session's plan file.
pub fn decide(mode: Mode, call: &Call<'_>, plan_file: bool) -> Decision {
    let (effect, target) = (call.effect, call.target);
    if effect.is_read_only() && effect != Effect::Network {
        return Decision::Allow;
    }
    let file_edit = effect == Effect::WriteFiles
        && matches!(target, PermissionTarget::Path { write: true, .. });
    let allowed = match mode {
        Mode::BypassPermissions => true,
        Mode::AcceptEdits => file_edit,
        Mode::Plan => plan_file,
        // An unknown mode (only ever decoded from the wire) asks, like `default`.
        Mode::Default | Mode::DontAsk | Mode::Unknown => false,
    };
    if allowed {
        Decision::Allow
    } else {
        ask(mode, describe(call.tool, target))
    }
}

/// An ask in `mode`: a deny saying why in `dontAsk`, an ask otherwise.
pub fn ask(mode: Mode, reason: String) -> Decision {
    if mode == Mode::DontAsk {
        Decision::Deny {
            reason: format!(
                "{reason}; this needs approval and the session is in dontAsk mode, \
                 which denies whatever would be asked"
            ),
        }
    } else {
        Decision::Ask { reason }
    }
}

/// What a call would do, in a few words, for the approval prompt.
pub fn describe(tool: &str, target: &PermissionTarget) -> String {
    match target {
        PermissionTarget::Path { path, write: true } => {
            format!("{tool} wants to write {}", path.display())
        }
        PermissionTarget::Path { path, write: false } => {
            format!("{tool} wants to read {}", path.display())
        }
        PermissionTarget::Command(command) => format!("{tool} wants to run: {command}"),
        PermissionTarget::Url(url) => format!("{tool} wants to fetch {url}"),
        PermissionTarget::None => format!("{tool} needs approval"),
    }
}
