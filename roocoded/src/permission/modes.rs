//! Layer 4, the session mode (DESIGN §8). For now every mode behaves as `default`:
//! read-only tools are allowed, anything else asks. The per-mode rules (`acceptEdits`,
//! `plan`'s plan file, `bypassPermissions`, `dontAsk`) arrive with the rules layer and
//! belong in [`decide`].

use crate::tools::{PermissionTarget, Tool};

use super::Decision;

/// A permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Read allow, write ask, command ask.
    Default,
    /// Edits inside the sandbox allowed.
    AcceptEdits,
    /// As default; the plan file is allowed.
    Plan,
    /// Everything allowed except denies of layers 1–3.
    BypassPermissions,
    /// Ask becomes deny (unattended agents).
    DontAsk,
}

impl Mode {
    /// The mode for its configuration name, as Claude Code spells them.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "default" => Self::Default,
            "acceptEdits" => Self::AcceptEdits,
            "plan" => Self::Plan,
            "bypassPermissions" => Self::BypassPermissions,
            "dontAsk" => Self::DontAsk,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
        }
    }
}

/// The mode's answer for a call that passed layers 1–3.
pub fn decide(_mode: Mode, tool: &dyn Tool, target: &PermissionTarget) -> Decision {
    if tool.is_read_only() {
        return Decision::Allow;
    }
    Decision::Ask {
        reason: describe(tool.name(), target),
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
