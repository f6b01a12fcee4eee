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

use serde::{Deserialize, Serialize};

use super::{Call, Decided, DecidedBy, Decision, Effect, PermissionTarget};

pub use roocode_protocol::Mode;

/// The column of the table above a call falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeCase {
    /// A tool that changes nothing: reads, searches, RooCode's own state.
    ReadOnly,
    /// A file tool's write (inside the sandbox: layer 2 came first).
    FileEdit,
    /// A write of the session's plan file.
    PlanFile,
    /// A network tool (WebFetch).
    Network,
    /// A command, an MCP tool, anything else.
    Other,
}

impl ModeCase {
    /// The case of `call`; `plan_file` is true when it writes the session's plan file.
    pub fn of(call: &Call<'_>, plan_file: bool) -> Self {
        let (effect, target) = (call.effect, call.target);
        if effect == Effect::Network {
            return Self::Network;
        }
        if effect.is_read_only() {
            return Self::ReadOnly;
        }
        if plan_file {
            return Self::PlanFile;
        }
        let file_edit = effect == Effect::WriteFiles
            && matches!(target, PermissionTarget::Path { write: true, .. });
        if file_edit {
            Self::FileEdit
        } else {
            Self::Other
        }
    }

    /// What the case is, in a few words (`a file edit`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::ReadOnly => "a call that changes nothing",
            Self::FileEdit => "a file edit",
            Self::PlanFile => "a write of the plan file",
            Self::Network => "a web fetch",
            Self::Other => "a command or another tool that acts",
        }
    }
}

/// True if `mode` allows calls of `case` without asking (the table above).
pub fn allows(mode: Mode, case: ModeCase) -> bool {
    match (mode, case) {
        (_, ModeCase::ReadOnly) | (Mode::BypassPermissions, _) => true,
        (Mode::AcceptEdits, ModeCase::FileEdit | ModeCase::PlanFile) => true,
        (Mode::Plan, ModeCase::PlanFile) => true,
        // An unknown mode (only ever decoded from the wire) asks, like `default`.
        (
            Mode::Default | Mode::AcceptEdits | Mode::Plan | Mode::DontAsk | Mode::Unknown,
            ModeCase::FileEdit | ModeCase::PlanFile | ModeCase::Network | ModeCase::Other,
        ) => false,
    }
}

/// The mode's answer for a call that passed layers 1–3 without a verdict.
/// `plan_file` is true when the call writes the session's plan file.
pub fn decide(mode: Mode, call: &Call<'_>, plan_file: bool) -> Decided {
    let case = ModeCase::of(call, plan_file);
    let decision = if allows(mode, case) {
        Decision::Allow
    } else {
        ask(mode, describe(call.tool, call.target))
    };
    Decided::new(decision, DecidedBy::Mode { mode, case })
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
