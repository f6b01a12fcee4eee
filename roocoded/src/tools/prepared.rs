//! [`Prepared`]: one tool call after its input was validated and parsed, once. It holds
//! the facts the permission gate decides on (computed from the typed arguments) and the
//! call itself, ready to run.

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{PermissionTarget, Spec, ToolContext, ToolError, ToolOutput};
use crate::permission::Call;

/// A call's arguments bound to its tool, waiting for the gate.
pub trait Invocation: Send + Sync {
    /// Run it (consumes it: a call runs once).
    fn run<'a>(
        self: Box<Self>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// One parsed call.
pub struct Prepared {
    /// The tool's name, description, effect and category.
    pub spec: Spec,
    /// What the gate matches on.
    pub target: PermissionTarget,
    /// May run together with other concurrency-safe calls.
    pub concurrency_safe: bool,
    /// Asks to run outside the OS sandbox.
    pub unsandboxed: bool,
    pub invocation: Box<dyn Invocation>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("tool", &self.spec.name)
            .field("target", &self.target)
            .field("concurrency_safe", &self.concurrency_safe)
            .field("unsandboxed", &self.unsandboxed)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// The call as the permission gate sees it; `input` is the arguments as given.
    pub fn call<'a>(&'a self, input: &'a Value) -> Call<'a> {
        Call {
            tool: self.spec.gated_as.as_deref().unwrap_or(&self.spec.name),
            effect: self.spec.effect,
            target: &self.target,
            input,
            unsandboxed: self.unsandboxed,
        }
    }

    /// Run the call.
    pub fn run(self, ctx: &ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        self.invocation.run(ctx)
    }
}
