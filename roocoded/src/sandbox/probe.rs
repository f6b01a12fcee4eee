//! What this machine offers for confining commands, probed once per daemon: bubblewrap
//! (installed and able to create its namespaces here, as this uid) and Landlock (ABI 6
//! or later, for write confinement with signal scoping).
//!
//! `ROOCODE_SANDBOX_PROBE` (read from the daemon's environment) pretends a mechanism is
//! missing, so the fallbacks can be tested on a machine that has everything:
//! `no-bwrap` (Landlock at best) or `none` (neither).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use landlock::{
    ABI, Access as _, AccessFs, CompatLevel, Compatible as _, Ruleset, RulesetAttr as _, Scope,
};

/// The environment knob (see the module documentation).
pub const PROBE_ENV: &str = "ROOCODE_SANDBOX_PROBE";

/// The probe's findings; each `Err` says why the mechanism cannot be used.
#[derive(Debug, Clone)]
pub struct Capabilities {
    /// The working `bwrap` binary.
    pub bwrap: Result<PathBuf, String>,
    /// Landlock with ABI ≥ 6 (filesystem writes, TCP, signals, abstract sockets).
    pub landlock: Result<(), String>,
}

/// The probe's findings for this daemon (probed on first use).
pub fn capabilities() -> &'static Capabilities {
    static CAPS: OnceLock<Capabilities> = OnceLock::new();
    CAPS.get_or_init(|| probe(std::env::var(PROBE_ENV).ok().as_deref()))
}

fn probe(knob: Option<&str>) -> Capabilities {
    let disabled = |what: &str| format!("{what} disabled by {PROBE_ENV}");
    let bwrap = match knob {
        Some("no-bwrap" | "none") => Err(disabled("bubblewrap")),
        _ => probe_bwrap(),
    };
    let landlock = match knob {
        Some("none") => Err(disabled("Landlock")),
        _ => probe_landlock(),
    };
    Capabilities { bwrap, landlock }
}

/// Where `bwrap` is looked for besides `PATH`.
const WELL_KNOWN: &[&str] = &["/usr/bin", "/bin", "/usr/local/bin"];

fn find_bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(WELL_KNOWN.iter().map(PathBuf::from))
        .filter(|d| d.is_absolute())
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
}

fn probe_bwrap() -> Result<PathBuf, String> {
    let bwrap = find_bwrap().ok_or_else(|| {
        "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)".to_string()
    })?;
    let sh = ["/bin/sh", "/usr/bin/sh"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.exists())
        .ok_or_else(|| "no /bin/sh to test bubblewrap with".to_string())?;
    let out = Command::new(&bwrap)
        .args([
            "--die-with-parent",
            "--unshare-pid",
            "--unshare-net",
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--",
        ])
        .arg(sh)
        .args(["-c", ":"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if out.status.success() {
        Ok(bwrap)
    } else {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err(format!(
            "{} cannot create its namespaces here ({why}); user namespaces may be disabled \
             (sysctl kernel.unprivileged_userns_clone / user.max_user_namespaces, or an \
             AppArmor restriction)",
            bwrap.display()
        ))
    }
}

fn probe_landlock() -> Result<(), String> {
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V6))
        .and_then(|r| r.scope(Scope::Signal))
        .and_then(|r| r.create())
        .map(drop)
        .map_err(|e| format!("Landlock ABI 6 (Linux 6.12 or later) is not available: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knob_disables_mechanisms() {
        let caps = probe(Some("none"));
        assert!(caps.bwrap.is_err() && caps.landlock.is_err());
        let caps = probe(Some("no-bwrap"));
        assert!(caps.bwrap.unwrap_err().contains(PROBE_ENV));
    }
}
