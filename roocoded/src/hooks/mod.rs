//! Hooks (DESIGN.md §7 "Hooks"): user commands and text injections that run at points
//! of a session — an event, an optional matcher and condition, an action. This module
//! is the self-contained core; the engine decides when to fire events and what to do
//! with the outcomes.
//!
//! - [`load`] reads the hooks of the user's, the project's and the local config
//!   (`.roocode/config.yaml` entries, see [`parse_yaml`], and Claude Code's
//!   `.claude/settings.json`, see [`parse_claude`]) into a [`HookSet`], with a
//!   [`HookProblem`] per broken entry.
//! - [`HookInput`] is one event (Claude Code's JSON shape on stdin, flat
//!   [`HookInput::fields`] for [`Condition`]s); [`HookSet::matching`] yields the hooks
//!   that apply to it.
//! - [`run`] runs one hook and returns a [`HookRun`] whose [`HookOutcome`] says what
//!   it decided (allow, deny, block, extra context, a replacement tool input, ...).
//!
//! ```ignore
//! let set = hooks::load(&user_dir, &home, &project_root);
//! let input = HookInput::pre_tool_use(ctx, "Bash", json!({"command": "rm -rf /"}));
//! for spec in set.matching(&input) {
//!     let done = hooks::run(spec, &input, &env).await;
//!     if done.outcome.is_blocking() { /* the reason becomes the tool's error */ }
//! }
//! ```

mod approvals;
mod claude;
mod condition;
mod event;
mod input;
mod lines;
mod outcome;
mod run;
mod set;
mod spec;
mod yaml;

pub use approvals::HookApprovals;
pub use claude::parse_claude;
pub use condition::{Condition, ConditionError};
pub use event::{CompactTrigger, HookEvent, SessionSource};
pub use input::{HookContext, HookInput};
pub use outcome::{Decision, HookOutcome, outcome_of_inject};
pub use run::{HookEnv, HookRun, KILL_GRACE, OUTPUT_CAP, hook_vars, run};
pub use set::{HookProblem, HookSet, load};
pub use spec::{DEFAULT_TIMEOUT, HookAction, HookScope, HookSource, HookSpec, Matcher};
pub use yaml::parse_yaml;
