//! The bubblewrap command line for a [`Policy`]: a mount namespace with `/` read-only,
//! a fresh `/dev` and `/proc`, the policy's mounts shallow first, every capability
//! dropped (as root, a kept `CAP_SYS_ADMIN` would let the command remount `/`
//! read-write), a PID namespace (so `kill -9 -1` reaches only the command's own
//! processes), optionally no network, and `--die-with-parent`. (That one has a window:
//! a daemon killed while bwrap is still setting the sandbox up, before it asked the
//! kernel for the signal, leaves the command orphaned; the next daemon kills it with
//! the other recorded process groups at start.)
//!
//! No `--new-session`: the command must stay in the process group the daemon created
//! (bwrap is spawned as the group leader and the shell inherits the group), and the
//! daemon's commands have no controlling terminal to steal input from.

use std::ffi::OsString;
use std::path::Path;

use super::policy::{Access, Policy};
use crate::config::SandboxNetwork;

/// The arguments before the program: `bwrap <these> -- <program> <args>`.
pub fn args(policy: &Policy, chdir: &Path) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut push = |parts: &[&std::ffi::OsStr]| out.extend(parts.iter().map(|p| p.to_os_string()));
    push(&[
        "--die-with-parent".as_ref(),
        "--unshare-pid".as_ref(),
        "--cap-drop".as_ref(),
        "ALL".as_ref(),
        "--ro-bind".as_ref(),
        "/".as_ref(),
        "/".as_ref(),
        "--dev".as_ref(),
        "/dev".as_ref(),
        "--proc".as_ref(),
        "/proc".as_ref(),
    ]);
    for m in &policy.mounts {
        let p = m.path.as_os_str();
        match (m.access, m.is_dir) {
            (Access::Writable, _) => push(&["--bind".as_ref(), p, p]),
            (Access::ReadOnly, _) => push(&["--ro-bind".as_ref(), p, p]),
            (Access::Hidden, true) => push(&["--tmpfs".as_ref(), p]),
            (Access::Hidden, false) => push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), p]),
        }
    }
    match policy.network {
        SandboxNetwork::Allow => {}
        SandboxNetwork::Deny => push(&["--unshare-net".as_ref()]),
    }
    push(&["--chdir".as_ref(), chdir.as_os_str(), "--".as_ref()]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::Mount;
    use std::path::PathBuf;

    fn words(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn one_mount_per_policy_entry_in_order() {
        let mount = |p: &str, access, is_dir| Mount {
            path: PathBuf::from(p),
            access,
            is_dir,
        };
        let policy = Policy {
            mounts: vec![
                mount("/ws", Access::Writable, true),
                mount("/h/.ssh", Access::Hidden, true),
                mount("/ws/.git/config", Access::ReadOnly, false),
                mount("/h/.docker/config.json", Access::Hidden, false),
            ],
            network: SandboxNetwork::Deny,
        };
        assert_eq!(
            words(&args(&policy, Path::new("/ws/src"))),
            "--die-with-parent --unshare-pid --cap-drop ALL --ro-bind / / --dev /dev --proc /proc \
             --bind /ws /ws --tmpfs /h/.ssh --ro-bind /ws/.git/config /ws/.git/config \
             --ro-bind /dev/null /h/.docker/config.json --unshare-net --chdir /ws/src --"
        );
        let open = Policy {
            mounts: vec![],
            network: SandboxNetwork::Allow,
        };
        assert!(!words(&args(&open, Path::new("/"))).contains("unshare-net"));
    }

    /// For real, where bubblewrap runs: a command of an agent in a worktree under the
    /// hidden data directory writes its worktree and sees nothing else of the data
    /// directory (no database, no other agent's worktree).
    #[test]
    fn in_bubblewrap_a_worktree_agent_sees_only_its_own_worktree() {
        use crate::sandbox::policy::PolicyInputs;
        use crate::sandbox::{SandboxSettings, capabilities};
        let Ok(bwrap) = &capabilities().bwrap else {
            eprintln!("skipped: bubblewrap cannot run here");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().canonicalize().unwrap().join("data");
        let own = data.join("worktrees/a");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(data.join("worktrees/b")).unwrap();
        std::fs::write(data.join("worktrees/b/theirs.txt"), "theirs").unwrap();
        std::fs::write(data.join("roocode.db"), "db").unwrap();
        let settings = SandboxSettings::default();
        let policy = Policy::build(&PolicyInputs {
            workspace: &own,
            cwd: &own,
            homes: vec![],
            roocode_dirs: vec![data],
            settings: &settings,
        });
        let script = "echo mine > mine.txt && pwd && ls -A ../ && \
                      (cat ../../roocode.db 2>/dev/null || echo no-db) && \
                      (cat ../b/theirs.txt 2>/dev/null || echo no-theirs)";
        let out = std::process::Command::new(bwrap)
            .args(args(&policy, &own))
            .args(["bash", "-c", script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines,
            [
                own.display().to_string().as_str(),
                "a",
                "no-db",
                "no-theirs"
            ],
            "{stdout}"
        );
        assert_eq!(
            std::fs::read_to_string(own.join("mine.txt")).unwrap(),
            "mine\n"
        );
    }
}
