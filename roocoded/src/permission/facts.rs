//! The plain facts the gate decides on: what a tool touches ([`Effect`]), what one call
//! of it names ([`PermissionTarget`]), the call itself ([`Call`]), where calls run
//! ([`Scope`]) and the moment of the check ([`Place`]). Tools state them; this module
//! defines them, so `permission` needs nothing of `tools`.

use std::path::{Path, PathBuf};

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
    /// Asks another program to act (an MCP server's tool): what it does is only what
    /// the server claims, so it is never taken as read-only.
    External,
}

impl Effect {
    /// True if a call changes nothing: no file, no process, nothing of the outside
    /// world. A network call counts as read-only here (it is asked for anyway, see
    /// [`super::modes`]).
    pub fn is_read_only(self) -> bool {
        match self {
            Self::Nothing | Self::OwnState | Self::ReadFiles | Self::Network => true,
            Self::WriteFiles | Self::RunCommands | Self::External => false,
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

/// Where calls run, as far as permission cares (owned by the tool context as `scope`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Session working directory; relative paths resolve against it.
    pub cwd: PathBuf,
    /// Project root (git top-level of `cwd`, else `cwd`).
    pub root: PathBuf,
    /// Configured `permissions.additional_directories` (read and write).
    pub additional_dirs: Vec<PathBuf>,
    /// RooCode's own places readable for this session (tool-result files, plan file
    /// directory, memory directories). Read access only.
    pub readable_dirs: Vec<PathBuf>,
}

impl Scope {
    /// A scope with no additional or readable directories.
    pub fn new(cwd: PathBuf, root: PathBuf) -> Self {
        Self {
            cwd,
            root,
            additional_dirs: Vec::new(),
            readable_dirs: Vec::new(),
        }
    }

    /// `path` resolved against the working directory (no canonicalisation).
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        if path.as_os_str().is_empty() {
            self.cwd.clone()
        } else {
            self.cwd.join(path)
        }
    }
}

/// One call as the gate sees it: plain facts, computed once per call from typed args.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub tool: &'a str,
    pub effect: Effect,
    pub target: &'a PermissionTarget,
    /// The arguments as given (rules on tools without a target match them).
    pub input: &'a serde_json::Value,
    /// Bash's `dangerously_disable_sandbox` (either spelling) is set.
    pub unsandboxed: bool,
}

/// The moment of the check.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub scope: &'a Scope,
    /// Where the next command would run (the shell's remembered directory).
    pub shell_cwd: &'a Path,
    /// Commands run in an OS sandbox that confines (so `unsandboxed` means something).
    pub confined: bool,
}
