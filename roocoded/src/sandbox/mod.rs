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
    /// what of the user's tmux servers they cannot reach (`tmux_hidden_paths`).
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
        let homes = command_homes(places.client_env);
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
    /// sandbox, with `scratch` (the session's private directory) writable and
    /// `readable` visible read-only. `None`: run the shell directly. `Err`: refuse to
    /// run (the text says why and what to do).
    pub fn wrapper(
        &self,
        dir: &Path,
        scratch: Option<&Path>,
        readable: &[PathBuf],
    ) -> Result<Option<(PathBuf, Vec<OsString>)>, String> {
        let mut policy = self.policy.clone();
        if let Some(scratch) = scratch {
            policy.add(scratch, Access::Writable);
        }
        for path in readable {
            policy.add(path, Access::ReadOnly);
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

/// The command's `HOME` (from the client's snapshot) and the daemon user's home.
fn command_homes(client_env: &BTreeMap<String, String>) -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = client_env
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
    homes
}

/// What of the user's tmux servers commands cannot see, under bubblewrap: the client
/// forwards `TMUX` so the daemon can open teammates' panes, and a command that reached
/// the server could type into the user's other panes. See [`tmux_hidden`] for what is
/// hidden; `TMUX_TMPDIR` is read from the client's snapshot and the daemon's
/// environment. Under the Landlock fallback nothing is hidden and the tmux server stays
/// reachable (Landlock cannot restrict connecting to a Unix socket by path).
fn tmux_hidden_paths(
    client_env: &BTreeMap<String, String>,
    workspace: &Path,
    cwd: &Path,
) -> Vec<PathBuf> {
    let mut bases: Vec<PathBuf> = [
        client_env.get("TMUX_TMPDIR").map(PathBuf::from),
        std::env::var_os("TMUX_TMPDIR").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .filter(|p| p.is_absolute())
    .collect();
    bases.push(PathBuf::from("/tmp"));
    let mut protected = vec![
        workspace.to_path_buf(),
        cwd.to_path_buf(),
        PathBuf::from("/tmp"),
    ];
    protected.extend(command_homes(client_env));
    tmux_hidden(
        client_env.get("TMUX").map(String::as_str),
        cwd,
        &bases,
        nix::unistd::getuid().as_raw(),
        &protected,
    )
}

/// The paths to hide for a client whose `TMUX` is `tmux` (`socket,pid,session`; a
/// relative socket, from `tmux -S ./x`, is taken against `cwd`):
///
/// - tmux's own socket directories, `tmux-<uid>` under each of `bases`
///   (`TMUX_TMPDIR`s and `/tmp`), whole;
/// - the client's socket: its directory when that is one of tmux's own, else the
///   socket file alone (bubblewrap binds `/dev/null` over it), so `-S ~/s` or
///   `-S /tmp/s` hides `s`, not the home or `/tmp`.
///
/// A directory that is or contains one of `protected` (workspace, cwd, homes, `/tmp`)
/// is never hidden: every command would break. Paths that do not exist are dropped
/// later by the policy.
fn tmux_hidden(
    tmux: Option<&str>,
    cwd: &Path,
    bases: &[PathBuf],
    uid: u32,
    protected: &[PathBuf],
) -> Vec<PathBuf> {
    let own: Vec<PathBuf> = bases
        .iter()
        .map(|b| b.join(format!("tmux-{uid}")))
        .collect();
    let hideable = |dir: &Path| {
        !protected.iter().any(|p| {
            forms(p)
                .iter()
                .any(|p| forms(dir).iter().any(|d| p.starts_with(d)))
        })
    };
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(socket) = tmux
        .and_then(|t| t.split(',').next())
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let socket = forms(&cwd.join(socket)).swap_remove(0);
        let in_own_dir = socket.parent().filter(|dir| {
            own.iter()
                .any(|o| forms(o).iter().any(|o| forms(dir).contains(o)))
                && hideable(dir)
        });
        out.push(match in_own_dir {
            Some(dir) => dir.to_path_buf(),
            None => socket,
        });
    }
    for dir in own {
        if hideable(&dir) && !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

/// `path` lexically cleaned (`.` and `..` resolved) and, where it exists, its real path.
fn forms(path: &Path) -> Vec<PathBuf> {
    use std::path::Component;
    let mut clean = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    let mut out = vec![clean];
    if let Ok(real) = path.canonicalize()
        && !out.contains(&real)
    {
        out.push(real);
    }
    out
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
    hidden.extend(tmux_hidden_paths(client_env, workspace, cwd));
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

    const UID: u32 = 4242;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    /// `tmux_hidden` for a client in `/home/u/proj` (workspace and cwd), home `/home/u`.
    fn hidden(tmux: Option<&str>, bases: &[&str]) -> Vec<PathBuf> {
        let bases: Vec<PathBuf> = bases.iter().map(|b| p(b)).collect();
        let protected = [
            p("/home/u/proj"),
            p("/home/u/proj"),
            p("/tmp"),
            p("/home/u"),
        ];
        tmux_hidden(tmux, Path::new("/home/u/proj"), &bases, UID, &protected)
    }

    #[test]
    fn tmux_s_own_socket_directory_is_hidden_whole() {
        assert_eq!(
            hidden(Some("/tmp/tmux-4242/default,99,0"), &["/tmp"]),
            [p("/tmp/tmux-4242")]
        );
        assert_eq!(
            hidden(
                Some("/run/user/7/tmux-4242/main,99,0"),
                &["/run/user/7", "/tmp"]
            ),
            [p("/run/user/7/tmux-4242"), p("/tmp/tmux-4242")]
        );
        // No client inside tmux: still tmux's default directory.
        assert_eq!(hidden(None, &["/tmp"]), [p("/tmp/tmux-4242")]);
    }

    #[test]
    fn a_socket_elsewhere_is_hidden_alone_never_its_directory() {
        for (tmux, socket) in [
            // `tmux -S ./.tmux.sock` in the project: TMUX is relative.
            ("./.tmux.sock,99,0", "/home/u/proj/.tmux.sock"),
            ("/home/u/proj/.tmux.sock,99,0", "/home/u/proj/.tmux.sock"),
            ("/home/u/s,99,0", "/home/u/s"),
            ("/tmp/s,99,0", "/tmp/s"),
            // A directory merely named like another user's, or not under a base.
            ("/tmp/tmux-1/default,99,0", "/tmp/tmux-1/default"),
            ("/srv/tmux-4242/default,99,0", "/srv/tmux-4242/default"),
        ] {
            let out = hidden(Some(tmux), &["/tmp"]);
            assert_eq!(out, [p(socket), p("/tmp/tmux-4242")], "{tmux}");
            for dir in ["/home/u/proj", "/home/u", "/tmp", "/"] {
                assert!(!out.contains(&p(dir)), "{tmux} hides {dir}");
            }
        }
    }

    #[test]
    fn a_tmux_directory_holding_the_workspace_or_a_home_is_not_hidden() {
        let bases = [p("/tmp")];
        let protected = [p("/tmp/tmux-4242/proj"), p("/tmp")];
        assert_eq!(
            tmux_hidden(
                Some("/tmp/tmux-4242/default,1,0"),
                Path::new("/tmp/tmux-4242/proj"),
                &bases,
                UID,
                &protected,
            ),
            [p("/tmp/tmux-4242/default")]
        );
        // TMUX_TMPDIR pointing at the home: its tmux-<uid> is fine, the home is not hidden.
        let out = hidden(Some("/home/u/tmux-4242/default,1,0"), &["/home/u", "/tmp"]);
        assert_eq!(out, [p("/home/u/tmux-4242"), p("/tmp/tmux-4242")]);
    }

    #[test]
    fn the_session_s_paths_protect_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let client: BTreeMap<String, String> = [
            (
                "TMUX".to_string(),
                format!("{}/.tmux.sock,1,0", ws.display()),
            ),
            ("HOME".to_string(), ws.display().to_string()),
        ]
        .into_iter()
        .collect();
        let out = tmux_hidden_paths(&client, &ws, &ws);
        assert_eq!(out[0], ws.join(".tmux.sock"));
        assert!(out.iter().all(|o| !ws.starts_with(o)), "{out:?}");
    }

    /// For real, where bubblewrap runs: the client's socket in the workspace is replaced
    /// by `/dev/null` (no longer a socket to connect to) and the workspace still works.
    #[test]
    fn in_bubblewrap_a_socket_in_the_workspace_is_hidden_and_the_workspace_is_not() {
        let Ok(bwrap) = &capabilities().bwrap else {
            eprintln!("skipped: bubblewrap cannot run here");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let socket = ws.join(".tmux.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let client: BTreeMap<String, String> =
            [("TMUX".to_string(), format!("{},1,0", socket.display()))]
                .into_iter()
                .collect();
        let settings = SandboxSettings::default();
        let policy = Policy::build(&PolicyInputs {
            workspace: &ws,
            cwd: &ws,
            homes: vec![],
            roocode_dirs: tmux_hidden_paths(&client, &ws, &ws),
            settings: &settings,
        });
        let script = "echo ok > f && cat f && (test -S .tmux.sock && echo socket || echo hidden)";
        let out = std::process::Command::new(bwrap)
            .args(bwrap::args(&policy, &ws))
            .args(["bash", "-c", script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.lines().collect::<Vec<_>>(), ["ok", "hidden"]);
        assert!(socket.exists(), "the socket itself is untouched");
    }
}
