//! Permission: the only place that decides whether a tool call may run (DESIGN §8).
//!
//! [`PermissionGate::check`] runs the layers in order and the first final answer wins:
//!
//! 1. dangerous commands — hard deny list for `Bash` (arrives with Bash, `dangerous.rs`);
//! 2. the path sandbox ([`sandbox`]) — never overridable;
//! 3. allow/ask/deny rules (arrives later, `rules.rs`);
//! 4. the session mode ([`modes`]);
//! 5. the human in the loop — an `Ask` answer is turned into a permission request by
//!    the agent loop, outside this module.
//!
//! Each layer is a function in its own file taking the tool, its
//! [`PermissionTarget`] and the context; `check` only sequences them.

pub mod modes;
pub mod persist;
pub mod sandbox;

use serde_json::Value;

use crate::tools::{PermissionTarget, Tool, ToolContext};

pub use modes::Mode;
pub use sandbox::{Access, SandboxError, check_access, check_path};

/// The answer for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user; `reason` says what the call would do.
    Ask { reason: String },
    /// Refuse; `reason` goes back to the model as the call's error result.
    Deny { reason: String },
}

/// The permission state of one session (or one agent): its mode and, later, its rules.
#[derive(Debug, Clone)]
pub struct PermissionGate {
    mode: Mode,
}

impl PermissionGate {
    /// A gate for the named mode (`default`, `acceptEdits`, `plan`,
    /// `bypassPermissions`, `dontAsk`). An unknown name falls back to `default`.
    pub fn new(mode: &str) -> Self {
        let mode = Mode::parse(mode).unwrap_or_else(|| {
            tracing::warn!(mode, "unknown permission mode; using default");
            Mode::Default
        });
        Self { mode }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Decide whether `tool` may run with `input` (already validated) in `ctx`.
    pub fn check(&self, tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> Decision {
        let target = tool.permission_target(input, ctx);

        // Layer 1 (dangerous commands) slots in here for `PermissionTarget::Command`.

        if let Err(e) = sandbox_layer(&target, ctx) {
            return Decision::Deny {
                reason: e.to_string(),
            };
        }

        // Layer 3 (rules) slots in here: a matching deny is final; allow/ask go to the
        // mode as the rules' verdict.

        modes::decide(self.mode, tool, &target)
    }
}

/// Layer 2 applied to a target: only paths are sandboxed.
fn sandbox_layer(target: &PermissionTarget, ctx: &ToolContext) -> Result<(), SandboxError> {
    match target {
        PermissionTarget::Path { path, write } => {
            let access = if *write { Access::Write } else { Access::Read };
            check_access(path, access, ctx).map(drop)
        }
        PermissionTarget::None | PermissionTarget::Command(_) | PermissionTarget::Url(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests;
