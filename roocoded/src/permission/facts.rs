//! The plain facts the gate decides on: what a tool touches ([`Effect`]) and what one
//! call of it names ([`PermissionTarget`]). Tools state them; this module defines them,
//! so `permission` needs nothing of `tools`.

use std::path::PathBuf;

use serde_json::Value;

/// What a tool touches, for the mode layer and for UIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Nothing outside the call itself.
    Nothing,
    /// Only RooCode's own state: the todo list, memories, the plan, a question to the
    /// user, the output of a shell the agent started.
    OwnState,
    /// Reads files (Read, Glob, Grep).
    ReadFiles,
    /// Creates or changes files (Write, Edit).
    WriteFiles,
    /// Runs or stops commands (Bash, KillShell).
    RunCommands,
    /// Talks to the network (WebFetch): nothing changes on disk, but whatever the URL
    /// carries leaves the machine.
    Network,
}

impl Effect {
    /// True if a call changes nothing: no file, no process, nothing of the outside
    /// world. A network call counts as read-only here (it is asked for anyway, see
    /// [`super::modes`]).
    pub fn is_read_only(self) -> bool {
        match self {
            Self::Nothing | Self::OwnState | Self::ReadFiles | Self::Network => true,
            Self::WriteFiles | Self::RunCommands => false,
        }
    }
}

/// What the permission system matches on for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionTarget {
    /// Nothing to match (the tool's name alone decides).
    None,
    /// A file or directory, as given by the model and resolved against the working
    /// directory (not yet canonicalised: the sandbox does that). `write` is true for
    /// tools that create or modify it.
    Path { path: PathBuf, write: bool },
    /// A shell command line.
    Command(String),
    /// A URL.
    Url(String),
}

/// One call as the gate sees it: plain facts, computed once per call from typed args.
// The shared contract of issue 10; on the `tools` branch a stub beside the old gate,
// which takes it through `PermissionGate::check_call`.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub tool: &'a str,
    pub effect: Effect,
    pub target: &'a PermissionTarget,
    /// The arguments as given (rules on tools without a target match them).
    pub input: &'a Value,
    /// Bash's `dangerously_disable_sandbox` (either spelling) is set.
    pub unsandboxed: bool,
}
