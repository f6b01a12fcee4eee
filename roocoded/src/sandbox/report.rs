//! What the sandbox tells people: the warning events at session start when commands run
//! with less than bubblewrap's guarantee (or the project file's loosening was ignored),
//! and the `sandbox` checks of `roocode-cli doctor`.

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};

use super::settings::SandboxSettings;
use super::{Capabilities, CommandSandbox, Mechanism};
use crate::config::{SandboxMode, SandboxNetwork};

/// What Landlock does not do, said wherever it is what runs.
pub const LANDLOCK_LIMITS: &str = "Landlock confines writes to the workspace, the \
additional directories, sandbox.allow_write and the session's TMPDIR, limits the network \
only for TCP (sandbox.network: deny), and keeps commands from signalling other processes; \
it cannot hide files (~/.ssh, ~/.aws, RooCode's own data and sandbox.deny_read stay \
readable) nor keep .git/config, .git/hooks and .roocode/ inside the workspace read-only, \
and commands can still connect to your tmux server (Landlock cannot restrict connecting to \
a Unix socket), so they could type into your other panes.";

/// The warnings for a session's start (empty when all is as configured and full).
pub fn session_warnings(sandbox: &CommandSandbox) -> Vec<String> {
    let mut out = Vec::new();
    match &sandbox.mechanism {
        Mechanism::Refuse(why) => out.push(why.clone()),
        Mechanism::Landlock(_) | Mechanism::Unconfined => {
            out.extend(sandbox.degraded.clone());
        }
        Mechanism::Bubblewrap(_) => {}
    }
    if !sandbox.ignored.is_empty() {
        out.push(format!(
            "Ignored in the project's .roocode/config.yaml, because a committed project \
             file cannot weaken the command sandbox: {}. Put these in \
             .roocode/config.local.yaml or ~/.roocode/config.yaml if you want them.",
            sandbox.ignored.join("; ")
        ));
    }
    out
}

/// `doctor`'s sandbox checks for a project with `settings`.
pub fn doctor_checks(caps: &Capabilities, settings: &SandboxSettings) -> Vec<DoctorCheck> {
    let mut checks = Vec::new();
    let bwrap = match &caps.bwrap {
        Ok(path) => DoctorCheck::new(
            "sandbox: bubblewrap",
            CheckStatus::Ok,
            format!(
                "{} works here: commands see / read-only, write only the workspace, the \
                 additional directories, sandbox.allow_write and their TMPDIR; \
                 .git/config, .git/hooks, .roocode/, .claude/, .mcp.json read-only; \
                 the home's credential places (~/.ssh, ~/.gnupg, ~/.aws, ~/.netrc, …), \
                 RooCode's home, your tmux server's socket and sandbox.deny_read hidden; \
                 own PID namespace; no capabilities",
                path.display()
            ),
        ),
        Err(why) => DoctorCheck::new("sandbox: bubblewrap", CheckStatus::Warn, why.clone()),
    };
    checks.push(bwrap);
    let landlock = match &caps.landlock {
        Ok(()) => DoctorCheck::new(
            "sandbox: landlock",
            CheckStatus::Ok,
            "ABI 6 or later available (the fallback when bubblewrap cannot run)",
        ),
        Err(why) => DoctorCheck::new("sandbox: landlock", CheckStatus::Warn, why.clone()),
    };
    checks.push(landlock);
    let (mechanism, _) = super::resolve(settings.mode, caps);
    let network = match settings.network {
        SandboxNetwork::Allow => "network allowed",
        SandboxNetwork::Deny => {
            "network denied (own network namespace: the host's loopback services are cut too)"
        }
    };
    let mode = settings.mode.as_str();
    let (status, detail) = match (&mechanism, settings.mode) {
        (Mechanism::Bubblewrap(_), _) => (
            CheckStatus::Ok,
            format!("sandbox.mode {mode}: commands run in bubblewrap, {network}"),
        ),
        (Mechanism::Landlock(_), _) => (
            CheckStatus::Warn,
            format!(
                "sandbox.mode {mode}: commands run with Landlock only, {network}. {LANDLOCK_LIMITS}"
            ),
        ),
        (Mechanism::Unconfined, SandboxMode::Off) => (
            CheckStatus::Warn,
            "sandbox.mode off: commands run unconfined (only the permission checks apply)"
                .to_string(),
        ),
        (Mechanism::Unconfined, _) => (
            CheckStatus::Fail,
            format!(
                "sandbox.mode {mode}: no mechanism works here, commands run unconfined. \
                 Install bubblewrap (apt-get install bubblewrap) or enable user namespaces"
            ),
        ),
        (Mechanism::Refuse(why), _) => (CheckStatus::Fail, why.clone()),
    };
    checks.push(DoctorCheck::new("sandbox", status, detail));
    if !settings.ignored.is_empty() {
        checks.push(DoctorCheck::new(
            "sandbox: project file",
            CheckStatus::Warn,
            format!(
                "ignored (a committed project file cannot weaken the sandbox): {}",
                settings.ignored.join("; ")
            ),
        ));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(bwrap: bool, landlock: bool) -> Capabilities {
        Capabilities {
            bwrap: if bwrap {
                Ok("/usr/bin/bwrap".into())
            } else {
                Err("bubblewrap is not installed".into())
            },
            landlock: if landlock {
                Ok(())
            } else {
                Err("no Landlock".into())
            },
        }
    }

    fn overall(checks: &[DoctorCheck]) -> (CheckStatus, String) {
        let c = checks.iter().find(|c| c.name == "sandbox").cloned();
        c.map(|c| (c.status, c.detail))
            .unwrap_or((CheckStatus::Fail, String::new()))
    }

    #[test]
    fn doctor_states_the_guarantee_and_landlock_limits() {
        let s = SandboxSettings::default();
        assert_eq!(
            overall(&doctor_checks(&caps(true, true), &s)).0,
            CheckStatus::Ok
        );
        let (status, detail) = overall(&doctor_checks(&caps(false, true), &s));
        assert_eq!(status, CheckStatus::Warn);
        assert!(detail.contains("cannot hide files"), "{detail}");
        assert!(detail.contains("tmux server"), "{detail}");
        assert_eq!(
            overall(&doctor_checks(&caps(false, false), &s)).0,
            CheckStatus::Fail
        );
        let required = SandboxSettings {
            mode: SandboxMode::Required,
            ..SandboxSettings::default()
        };
        let (status, detail) = overall(&doctor_checks(&caps(false, true), &required));
        assert_eq!(status, CheckStatus::Fail);
        assert!(detail.contains("not run"), "{detail}");
    }
}
