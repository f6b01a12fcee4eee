//! `doctor.run`: the daemon's part of `roocode-cli doctor`, a list of named checks
//! (ok, warn or FAIL, each with a sentence saying what was found and what to do). One
//! file per area: the daemon itself (here), the config files and providers' keys
//! (`config`) with the command sandbox on this kernel (`crate::sandbox::report`), the
//! database's integrity (`database`), the project's MCP servers (`mcp`) and hooks
//! (`hooks`), the disk used by RooCode's data (`disk`) and whether the raw bodies of
//! model calls are kept (`trace`). The caller's `cwd` picks the project; a `cwd` that
//! is no directory fails the config check and leaves out the project's checks.

mod config;
mod database;
mod disk;
mod hooks;
mod mcp;
mod trace;

use std::path::{Path, PathBuf};

use roocode_protocol::api::{DoctorApiServer, RpcResult};
use roocode_protocol::doctor::{CheckStatus, DoctorCheck, DoctorReport};
use roocode_protocol::session::ClientEnv;

use super::{DaemonContext, Handler};

#[jsonrpsee::core::async_trait]
impl DoctorApiServer for Handler {
    async fn run(&self, cwd: String, env: ClientEnv) -> RpcResult<DoctorReport> {
        Ok(DoctorReport {
            build_id: roocode_protocol::BUILD_ID.to_string(),
            checks: checks(&self.0, &cwd, &env).await,
        })
    }
}

/// Every check, in the order `roocode-cli doctor` prints them.
async fn checks(ctx: &DaemonContext, cwd: &str, env: &ClientEnv) -> Vec<DoctorCheck> {
    let mut checks = vec![daemon_check(ctx.started.elapsed())];
    let root = project_root(Path::new(cwd));
    checks.extend(project_checks(ctx, cwd, root.clone(), env).await);
    checks.push(database::check(ctx.engine.store(), &ctx.paths.database, env).await);
    if root.is_some() {
        checks.extend(mcp::checks(&ctx.engine, cwd, env).await);
        checks.push(hooks::check(&ctx.engine, cwd, env).await);
    }
    checks.extend(disk::checks(ctx.engine.store(), &ctx.paths, root.as_deref()).await);
    checks.push(trace::check(&ctx.engine, root.as_deref()).await);
    checks
}

fn daemon_check(uptime: std::time::Duration) -> DoctorCheck {
    DoctorCheck::new(
        "daemon",
        CheckStatus::Ok,
        format!(
            "reachable, pid {}, up {} s, build {}",
            std::process::id(),
            uptime.as_secs(),
            roocode_protocol::BUILD_ID
        ),
    )
}

/// The project root of `cwd`, which must be an existing absolute directory.
fn project_root(cwd: &Path) -> Option<PathBuf> {
    (cwd.is_absolute() && cwd.is_dir()).then(|| crate::project::root(cwd))
}

/// The config files, the sandbox and the keys for the project (they read files and
/// probe the kernel: a blocking task).
async fn project_checks(
    ctx: &DaemonContext,
    cwd: &str,
    root: Option<PathBuf>,
    env: &ClientEnv,
) -> Vec<DoctorCheck> {
    let Some(root) = root else {
        return vec![DoctorCheck::new(
            "config",
            CheckStatus::Fail,
            format!("`{cwd}` is not an existing absolute directory"),
        )];
    };
    let user_dir = ctx.paths.user_dir.clone();
    let env = env.clone();
    tokio::task::spawn_blocking(move || config::checks(&user_dir, &root, &env))
        .await
        .unwrap_or_else(|e| {
            vec![DoctorCheck::new(
                "config",
                CheckStatus::Fail,
                format!("the config checks failed: {e}"),
            )]
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_an_existing_absolute_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert!(project_root(dir.path()).is_some());
        assert_eq!(project_root(Path::new("relative/dir")), None);
        assert_eq!(project_root(&dir.path().join("missing")), None);
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(project_root(&file), None);
    }
}
