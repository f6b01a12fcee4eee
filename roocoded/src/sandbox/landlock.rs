//! The Landlock fallback: `roocoded sandbox-exec [--write PATH]... [--deny-net] --
//! PROGRAM ARGS...`, a helper the daemon re-executes itself as (Landlock restricts the
//! calling thread and its children, so it is never applied inside the multi-threaded
//! daemon: CRATES.md pitfall 16). It restricts itself, then `exec`s the program, so the
//! program keeps the helper's pid and process group.
//!
//! Guarantees (weaker than bubblewrap's): writes only below the `--write` paths (reads
//! and execution everywhere); with `--deny-net` no TCP connect or bind (UDP and Unix
//! sockets are not covered); no signals to processes outside the sandbox and no
//! connection to abstract Unix sockets outside it. Not available: hiding paths
//! (`sandbox.deny_read` and the credential stores stay readable) and read-only islands
//! inside writable places (`.git/config`, `.git/hooks`, `.roocode/` stay writable).
//! If the ruleset cannot be fully enforced, the helper refuses to run the program.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::ExitCode;

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, CompatLevel, Compatible as _, Ruleset, RulesetAttr as _,
    RulesetCreatedAttr as _, RulesetStatus, Scope, path_beneath_rules,
};

use super::policy::Policy;
use crate::config::SandboxNetwork;

/// The helper's subcommand name (the first argument of `roocoded`).
pub const SUBCOMMAND: &str = "sandbox-exec";

/// The helper's arguments for `policy`, up to and including `--`.
pub fn args(policy: &Policy) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec![SUBCOMMAND.into()];
    for path in policy.writable() {
        out.push("--write".into());
        out.push(path.as_os_str().to_os_string());
    }
    for dev in ["/dev/null", "/dev/tty", "/dev/pts"] {
        out.push("--write".into());
        out.push(dev.into());
    }
    match policy.network {
        SandboxNetwork::Allow => {}
        SandboxNetwork::Deny => out.push("--deny-net".into()),
    }
    out.push("--".into());
    out
}

/// What the helper was asked to do.
#[derive(Debug, PartialEq)]
struct Request {
    writable: Vec<PathBuf>,
    deny_net: bool,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Request, String> {
    let mut writable = Vec::new();
    let mut deny_net = false;
    loop {
        let arg = args
            .next()
            .ok_or("missing `-- PROGRAM`: usage: roocoded sandbox-exec [--write PATH]... [--deny-net] -- PROGRAM ARGS...")?;
        match arg.to_str() {
            Some("--write") => {
                writable.push(PathBuf::from(args.next().ok_or("--write needs a path")?))
            }
            Some("--deny-net") => deny_net = true,
            Some("--") => break,
            _ => return Err(format!("unknown argument {}", arg.to_string_lossy())),
        }
    }
    let program = args.next().ok_or("missing the program after `--`")?;
    Ok(Request {
        writable,
        deny_net,
        program,
        args: args.collect(),
    })
}

fn restrict(req: &Request) -> Result<(), String> {
    let abi = ABI::V6;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| e.to_string())?;
    if req.deny_net {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| e.to_string())?;
    }
    let status = ruleset
        .scope(Scope::Signal)
        .and_then(|r| r.scope(Scope::AbstractUnixSocket))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi))))
        .and_then(|r| {
            // A writable path that vanished since the daemon checked it is left out.
            let existing = req.writable.iter().filter(|p| p.exists());
            r.add_rules(path_beneath_rules(existing, AccessFs::from_all(abi)))
        })
        .and_then(|r| r.restrict_self())
        .map_err(|e| e.to_string())?;
    if status.ruleset != RulesetStatus::FullyEnforced || !status.no_new_privs {
        return Err(format!("the ruleset is only {:?}", status.ruleset));
    }
    Ok(())
}

/// The helper's `main`: `args` are the arguments after `sandbox-exec`.
pub fn exec_main(args: impl Iterator<Item = OsString>) -> ExitCode {
    let req = match parse(args) {
        Ok(req) => req,
        Err(e) => {
            eprintln!("roocoded sandbox-exec: {e}");
            return ExitCode::from(125);
        }
    };
    if let Err(e) = restrict(&req) {
        eprintln!(
            "roocoded sandbox-exec: cannot confine the command with Landlock ({e}); it was not run. \
             Set sandbox.mode: off in ~/.roocode/config.yaml to run commands unconfined."
        );
        return ExitCode::from(125);
    }
    let err = std::process::Command::new(&req.program)
        .args(&req.args)
        .exec();
    eprintln!(
        "roocoded sandbox-exec: cannot run {}: {err}",
        req.program.to_string_lossy()
    );
    ExitCode::from(127)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::{Access, Mount};

    #[test]
    fn arguments_round_trip() {
        let policy = Policy {
            mounts: vec![
                Mount {
                    path: "/ws".into(),
                    access: Access::Writable,
                    is_dir: true,
                },
                Mount {
                    path: "/h/.ssh".into(),
                    access: Access::Hidden,
                    is_dir: true,
                },
            ],
            network: SandboxNetwork::Deny,
        };
        let mut args = args(&policy);
        assert_eq!(args.remove(0), SUBCOMMAND);
        args.extend(["/bin/sh".into(), "-c".into(), "true".into()]);
        let req = parse(args.into_iter()).unwrap();
        assert_eq!(
            req.writable,
            ["/ws", "/dev/null", "/dev/tty", "/dev/pts"].map(PathBuf::from)
        );
        assert!(req.deny_net);
        assert_eq!(req.program, "/bin/sh");
        assert_eq!(req.args, ["-c", "true"]);
        assert!(parse(["--bogus".into()].into_iter()).is_err());
        assert!(parse(["--".into()].into_iter()).is_err());
    }
}
