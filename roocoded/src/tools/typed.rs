//! Typed tools: a tool written as one argument struct (`Deserialize` + `JsonSchema`), a
//! [`Spec`] and a handler. The blanket impl turns every [`TypedTool`] into the erased
//! [`Tool`] the registry holds, so built-ins and run-time tools (MCP, skills: a schema
//! known only when they are loaded) share one registry.

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize as _;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::prepared::{Invocation, Prepared};
use super::{PermissionTarget, Spec, Tool, ToolContext, ToolError, ToolOutput};

/// A tool with typed arguments. Implementations are stateless or cheap to clone (per
/// session state lives in the context): a prepared call holds its own clone.
pub trait TypedTool: Clone + Send + Sync + 'static {
    /// The arguments; the input schema is derived from this type (`tools/schema.rs`).
    type Args: DeserializeOwned + JsonSchema + Send + Sync + 'static;

    /// Name, description, effect and category.
    fn spec(&self) -> Spec;

    /// What the permission gate matches on for this call.
    fn target(&self, _args: &Self::Args, _ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::None
    }

    /// True if this call may run concurrently with other concurrency-safe calls.
    fn is_concurrency_safe(&self, _args: &Self::Args) -> bool {
        false
    }

    /// True if this call asks to run outside the OS sandbox (Bash only).
    fn unsandboxed(&self, _args: &Self::Args) -> bool {
        false
    }

    /// Run the call; the gate has allowed it. Long work must watch `ctx.cancel` and
    /// return [`ToolError::Cancelled`].
    fn run<'a>(
        &'a self,
        args: Self::Args,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

impl<T: TypedTool> Tool for T {
    fn spec(&self) -> Spec {
        TypedTool::spec(self)
    }

    fn input_schema(&self) -> Value {
        super::schema::input_schema::<T::Args>()
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let spec = TypedTool::spec(self);
        // Validation already ran, so a failure here means the schema and the struct
        // disagree; still an answer for the model rather than a panic.
        let args = T::Args::deserialize(input).map_err(|e| {
            ToolError::InvalidInput(format!("invalid input for {}: {e}", spec.name))
        })?;
        Ok(Prepared {
            target: self.target(&args, ctx),
            concurrency_safe: self.is_concurrency_safe(&args),
            unsandboxed: self.unsandboxed(&args),
            spec,
            invocation: Box::new(TypedCall {
                tool: self.clone(),
                args,
            }),
        })
    }
}

/// A typed call waiting to run: the tool and its parsed arguments.
struct TypedCall<T: TypedTool> {
    tool: T,
    args: T::Args,
}

impl<T: TypedTool> Invocation for TypedCall<T> {
    fn run<'a>(
        self: Box<Self>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let TypedCall { tool, args } = *self;
        async move { tool.run(args, ctx).await }.boxed()
    }
}
