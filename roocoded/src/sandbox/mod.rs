//! The OS sandbox of every command run for the model (Bash and background shells; not
//! the user's own hooks): DESIGN.md §8 "Beyond reading the command", issue 9 item 1.
//!
//! - [`probe`]: what this machine offers (bubblewrap, Landlock ABI ≥ 6), probed once.
//! - [`settings`]: the `sandbox.*` keys merged so a committed project file can only
//!   tighten them.
//! - [`policy`]: the writable, read-only and hidden paths, resolved.
//! - [`bwrap`] / [`landlock`]: the two mechanisms' command lines (Landlock runs in the
//!   re-executed helper `roocoded sandbox-exec`, never in the daemon).
//! - [`env`](mod@env): the commands' environment (no provider keys, no `ROOCODE_*`).
//! - [`hint`]: the note on a command the sandbox probably stopped.
//! - [`disable`]: Bash's `dangerously_disable_sandbox`, always its own question.
//! - [`report`]: the session-start warning and `roocode-cli doctor`'s section.
//!
//! A [`CommandSandbox`] is built per batch of tool calls from the current config and
//! handed to tools in `ToolContext::sandbox`; the Bash tool asks it for the program
//! line to exec (`bwrap … -- bash -c …`) and the environment.

pub mod bwrap;
pub mod disable;
pub mod env;
pub mod hint;
pub mod landlock;
pub mod policy;
pub mod probe;
pub mod report;
pub mod settings;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::config::{Config, SandboxMode};
pub use env::EnvPolicy;
pub use policy::{Access, Policy, PolicyInputs};
pub use probe::{Capabilities, capabilities};
pub use settings::SandboxSettings;

/// How commands are started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mechanism {
    /// Inside bubblewrap: the full guarantee.
    Bubblewrap(PathBuf),
    /// Through `roocoded sandbox-exec` (the daemon's own executable): writes confined.
    Landlock(PathBuf),
    /// Unconfined: `sandbox.mode: off`, or `auto` with nothing available.
    Unconfined,
    /// `sandbox.mode: required` without bubblewrap: commands are refused with this text.
    Refuse(String),
}

/// The confinement of one session's commands, for one batch of tool calls.
#[derive(Debug, Clone)]
pub struct CommandSandbox {
    pub mode: SandboxMode,
    pub mechanism: Mechanism,
    pub policy: Policy,
    pub env: EnvPolicy,
    /// Why the mechanism is weaker than bubblewrap (empty when it is bubblewrap or off).
    pub degraded: Option<String>,
    /// What the project file asked for and did not get.
    pub ignored: Vec<String>,
}

/// Where a session's commands run and who runs them.
#[derive(Debug, Clone)]
pub struct SessionPlaces<'a> {
    /// `~/.roocode` or `ROOCODE_HOME` (its config file is read here).
    pub user_dir: &'a Path,
    /// RooCode's directories hidden from commands (user dir, data, state, run dir), and
    /// the user's tmux socket directories ([`tmux_socket_dirs`]).
    pub roocode_dirs: Vec<PathBuf>,
    /// The workspace: project root or agent worktree.
    pub workspace: &'a Path,
    /// The session's directory (relative configured paths resolve against it).
    pub cwd: &'a Path,
    /// The client's environment snapshot (its `HOME` is the command's).
    pub client_env: &'a BTreeMap<String, String>,
}

impl CommandSandbox {
    /// The sandbox of `places` under `settings` (read with each file's trust by
    /// [`SandboxSettings::load`]), on this machine's mechanism or the probe's `caps`.
    pub fn from_settings(
        places: &SessionPlaces<'_>,
        settings: &SandboxSettings,
        config: &Config,
        caps: &Capabilities,
    ) -> Self {
        let mut homes: Vec<PathBuf> = places
            .client_env
            .get("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .into_iter()
            .collect();
        if let Some(home) = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
            && !homes.contains(&home)
        {
            homes.push(home);
        }
        let policy = Policy::build(&PolicyInputs {
            workspace: places.workspace,
            cwd: places.cwd,
            homes,
            roocode_dirs: places.roocode_dirs.clone(),
            settings,
        });
        let mut scrub = settings.scrub_env.clone();
        scrub.extend(
            config
                .providers
                .values()
                .filter_map(|p| p.api_key_env.clone()),
        );
        let env = EnvPolicy {
            forward: settings.forward.clone(),
            scrub,
        };
        let (mechanism, degraded) = resolve(settings.mode, caps);
        Self {
            mode: settings.mode,
            mechanism,
            policy,
            env,
            degraded,
            ignored: settings.ignored.clone(),
        }
    }

    /// True when commands run confined (or are refused).
    pub fn confines(&self) -> bool {
        !matches!(self.mechanism, Mechanism::Unconfined)
    }

    /// The program and arguments that run `shell shell_args` in `dir` under this
    /// sandbox, with `scratch` (the session's private directory) writable. `None`:
    /// run the shell directly. `Err`: refuse to run (the text says why and what to do).
    pub fn wrapper(
        &self,
        dir: &Path,
        scratch: Option<&Path>,
    ) -> Result<Option<(PathBuf, Vec<OsString>)>, String> {
        let mut policy = self.policy.clone();
        if let Some(scratch) = scratch {
            policy.add(scratch, Access::Writable);
        }
        match &self.mechanism {
            Mechanism::Unconfined => Ok(None),
            Mechanism::Refuse(why) => Err(why.clone()),
            Mechanism::Bubblewrap(bwrap) => Ok(Some((bwrap.clone(), bwrap::args(&policy, dir)))),
            Mechanism::Landlock(exe) => Ok(Some((exe.clone(), landlock::args(&policy)))),
        }
    }

    /// The command's environment from the client's snapshot.
    pub fn command_env(
        &self,
        client: &BTreeMap<String, String>,
        tmpdir: Option<&Path>,
    ) -> BTreeMap<String, String> {
        let daemon: Vec<(String, String)> = std::env::vars().collect();
        env::command_env(client, &self.env, &daemon, tmpdir)
    }
}

/// Where the user's tmux servers listen: the directory of the client's `TMUX` socket
/// and tmux's default `${TMUX_TMPDIR:-/tmp}/tmux-<uid>`. Commands cannot see them (the
/// client forwards `TMUX` so the daemon can open teammates' panes; a command that
/// reached the server could type into the user's other panes). Missing ones are left
/// out of the policy.
fn tmux_socket_dirs(client_env: &BTreeMap<String, String>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(socket) = client_env
        .get("TMUX")
        .and_then(|t| t.split(',').next())
        .map(Path::new)
        .filter(|p| p.is_absolute())
        && let Some(dir) = socket.parent()
    {
        dirs.push(dir.to_path_buf());
    }
    let base = std::env::var_os("TMUX_TMPDIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let default = base.join(format!("tmux-{}", nix::unistd::getuid()));
    if !dirs.contains(&default) {
        dirs.push(default);
    }
    dirs
}

/// The daemon's own executable, for the Landlock helper. `/proc/self/exe` is resolved by
/// the forked child just before `exec`, so it is still the daemon's image even after the
/// binary on disk was replaced or deleted (an upgrade while it runs).
fn helper_exe() -> std::io::Result<PathBuf> {
    let proc_exe = PathBuf::from("/proc/self/exe");
    if proc_exe.exists() {
        Ok(proc_exe)
    } else {
        std::env::current_exe()
    }
}

/// The mechanism for `mode` given what the probe found, and why it is degraded.
pub fn resolve(mode: SandboxMode, caps: &Capabilities) -> (Mechanism, Option<String>) {
    match (mode, &caps.bwrap) {
        (SandboxMode::Off, _) => (Mechanism::Unconfined, None),
        (_, Ok(bwrap)) => (Mechanism::Bubblewrap(bwrap.clone()), None),
        (SandboxMode::Required, Err(why)) => (
            Mechanism::Refuse(format!(
                "Commands are not run: sandbox.mode is `required` and bubblewrap cannot run \
                 here ({why}). Install bubblewrap, or set sandbox.mode: auto (Landlock or \
                 nothing) in ~/.roocode/config.yaml or .roocode/config.local.yaml."
            )),
            Some(format!("bubblewrap cannot run: {why}")),
        ),
        (SandboxMode::Auto, Err(bwrap_why)) => match (&caps.landlock, helper_exe()) {
            (Ok(()), Ok(exe)) => (
                Mechanism::Landlock(exe),
                Some(format!(
                    "Commands run with Landlock only, because {bwrap_why}. {}",
                    report::LANDLOCK_LIMITS
                )),
            ),
            (Err(ll_why), _) => (
                Mechanism::Unconfined,
                Some(format!(
                    "Commands run WITHOUT an OS sandbox: {bwrap_why}, and {ll_why}. Only \
                     RooCode's permission checks stand between a command and your files."
                )),
            ),
            (Ok(()), Err(e)) => (
                Mechanism::Unconfined,
                Some(format!(
                    "Commands run WITHOUT an OS sandbox: {bwrap_why}, and the daemon cannot \
                     find its own executable for the Landlock helper ({e})."
                )),
            ),
        },
    }
}

/// The sandbox of a session's commands for one batch of tool calls: the `workspace`
/// is the session's root, or a sub-agent's git worktree; RooCode's own directories
/// from `paths` are hidden — a worktree inside the data directory is the one place
/// below them a command sees (the policy's deeper mount wins) —, `settings` are the
/// turn's (see `agent::turn_config`).
pub fn for_session(
    paths: &roocode_protocol::paths::Paths,
    workspace: &Path,
    cwd: &Path,
    client_env: &BTreeMap<String, String>,
    config: &Config,
    settings: &SandboxSettings,
) -> std::sync::Arc<CommandSandbox> {
    let mut hidden = vec![
        paths.user_dir.clone(),
        paths.data_dir.clone(),
        paths.state_dir.clone(),
        paths.run_dir.clone(),
    ];
    hidden.extend(tmux_socket_dirs(client_env));
    let places = SessionPlaces {
        user_dir: &paths.user_dir,
        roocode_dirs: hidden,
        workspace,
        cwd,
        client_env,
    };
    std::sync::Arc::new(CommandSandbox::from_settings(
        &places,
        settings,
        config,
        capabilities(),
    ))
}

#[cfg(test)]
mod tmux_tests {
    use super::*;

    #[test]
    fn the_client_s_tmux_socket_directory_and_tmux_s_default_one_are_hidden() {
        let client: BTreeMap<String, String> = [(
            "TMUX".to_string(),
            "/run/user/7/tmux-private/main,4242,0".to_string(),
        )]
        .into_iter()
        .collect();
        let dirs = tmux_socket_dirs(&client);
        assert_eq!(dirs[0], PathBuf::from("/run/user/7/tmux-private"));
        let uid = nix::unistd::getuid();
        assert!(
            dirs[1].ends_with(format!("tmux-{uid}")),
            "tmux's default directory: {dirs:?}"
        );
        assert_eq!(tmux_socket_dirs(&BTreeMap::new()).len(), 1);
    }
}
