//! `roocode-cli doctor`: is everything in place? Connects to the daemon (starting it if
//! needed) and prints its checks for this directory — daemon and build, the command
//! sandbox on this kernel and its guarantees, the config files (file:line errors), the
//! providers' keys (set or not, never their values) — one per line:
//! `ok|warn|FAIL  name: detail`. Exit status 1 when any check failed.

use roocode_protocol::api::DoctorApiClient;
use roocode_protocol::doctor::{CheckStatus, DoctorCheck, DoctorReport};

use crate::connect;
use crate::failure::Failure;
use crate::output::out;

pub async fn run() -> anyhow::Result<i32> {
    let paths = connect::paths()?;
    let conn = match connect::connect(&paths).await {
        Ok(conn) => conn,
        Err(e) => {
            let check = DoctorCheck::new(
                "daemon",
                CheckStatus::Fail,
                format!(
                    "not reachable at {}: {}. See `roocode-cli daemon status` and the log in {}",
                    paths.socket.display(),
                    e.message,
                    paths.log.display()
                ),
            );
            out(&render(&[check]));
            return Ok(1);
        }
    };
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::new("config", format!("cannot read the current directory: {e}")))?;
    let report = conn
        .rpc
        .run(cwd.display().to_string(), roocode_client::client_env(&cwd))
        .await
        .map_err(Failure::from)?;
    let checks = with_build_check(report);
    out(&render(&checks));
    Ok(i32::from(
        checks.iter().any(|c| c.status == CheckStatus::Fail),
    ))
}

/// The daemon's checks plus one comparing its build with this client's.
fn with_build_check(report: DoctorReport) -> Vec<DoctorCheck> {
    let mut checks = report.checks;
    let client = roocode_protocol::BUILD_ID;
    let build = if report.build_id == client {
        DoctorCheck::new(
            "build",
            CheckStatus::Ok,
            format!("client and daemon are {client}"),
        )
    } else {
        DoctorCheck::new(
            "build",
            CheckStatus::Warn,
            format!(
                "the daemon is {} and this client {client}: restart it with `roocode-cli daemon stop`",
                report.build_id
            ),
        )
    };
    checks.insert(1.min(checks.len()), build);
    checks
}

fn render(checks: &[DoctorCheck]) -> String {
    let mut text = String::new();
    for c in checks {
        let mut lines = c.detail.lines();
        let first = lines.next().unwrap_or_default();
        text.push_str(&format!("{:<5} {}: {first}\n", c.status.as_str(), c.name));
        for more in lines {
            text.push_str(&format!("      {more}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_check_and_a_build_comparison() {
        let report = DoctorReport {
            build_id: "0.0.0+other".into(),
            checks: vec![
                DoctorCheck::new("daemon", CheckStatus::Ok, "reachable"),
                DoctorCheck::new("config: /x", CheckStatus::Fail, "line 2: bad\nmore"),
            ],
        };
        let checks = with_build_check(report);
        let text = render(&checks);
        assert_eq!(
            text.lines().next().unwrap_or_default(),
            "ok    daemon: reachable"
        );
        assert!(
            text.contains("warn  build: the daemon is 0.0.0+other"),
            "{text}"
        );
        assert!(
            text.contains("FAIL  config: /x: line 2: bad\n      more\n"),
            "{text}"
        );
    }
}
