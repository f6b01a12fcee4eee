//! Bash's `dangerously_disable_sandbox: true` (also `dangerouslyDisableSandbox`, Claude
//! Code's spelling): running a command outside the OS sandbox is its own permission
//! question, showing the command. No rule and no mode answers it — `bypassPermissions`
//! and an allow rule for the command still ask; `dontAsk` denies; a deny still denies.

use serde_json::Value;

use crate::permission::{Decision, Mode, modes};
use crate::tools::ToolContext;

/// Both spellings of the parameter.
pub const PARAMS: &[&str] = &["dangerously_disable_sandbox", "dangerouslyDisableSandbox"];

/// True if the Bash input asks to run outside the sandbox.
pub fn requested(input: &Value) -> bool {
    PARAMS
        .iter()
        .any(|p| input.get(p).and_then(Value::as_bool) == Some(true))
}

/// The final decision for a call the layers decided as `decision`.
pub fn review(
    decision: Decision,
    mode: Mode,
    tool: &str,
    input: &Value,
    ctx: &ToolContext,
) -> Decision {
    // Only a real sandbox can be disabled; without one the flag changes nothing.
    let confining = ctx.sandbox.as_ref().is_some_and(|s| s.confines());
    if tool != "Bash" || !requested(input) || !confining {
        return decision;
    }
    let command = input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let question = format!(
        "Run WITHOUT the OS sandbox (it could write anywhere you can and read your \
         credentials): {command}"
    );
    match decision {
        Decision::Deny { .. } => decision,
        Decision::Allow => modes::ask(mode, question),
        Decision::Ask { reason } => modes::ask(mode, format!("{question} — also: {reason}")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::config::{SandboxMode, SandboxNetwork};
    use crate::permission::PermissionTarget;
    use crate::permission::{GateSettings, PermissionGate, Rules};
    use crate::sandbox::{CommandSandbox, EnvPolicy, Mechanism, Policy};
    use crate::tools::test_support::FakeTool;

    fn sandbox(mechanism: Mechanism) -> Arc<CommandSandbox> {
        Arc::new(CommandSandbox {
            mode: SandboxMode::Auto,
            mechanism,
            policy: Policy {
                mounts: vec![],
                network: SandboxNetwork::Allow,
            },
            env: EnvPolicy::default(),
            degraded: None,
            ignored: vec![],
        })
    }

    fn decide(
        mode: Mode,
        allow: &[&str],
        deny: &[&str],
        input: &Value,
        confined: bool,
    ) -> Decision {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (rules, errors) = Rules::parse(&owned(allow), &[], &owned(deny));
        assert!(errors.is_empty());
        let gate = PermissionGate::new(GateSettings {
            rules,
            ..GateSettings::new(mode)
        });
        let mut tool = FakeTool::new("Bash", json!({"type": "object"}));
        let command = input["command"].as_str().unwrap().to_string();
        tool.target = PermissionTarget::Command(command);
        let mut ctx = ToolContext::new("s", "/tmp".into(), "/tmp".into());
        ctx.sandbox = Some(sandbox(if confined {
            Mechanism::Bubblewrap("/usr/bin/bwrap".into())
        } else {
            Mechanism::Unconfined
        }));
        gate.check(&tool, input, &ctx)
    }

    #[test]
    fn leaving_the_sandbox_is_asked_whatever_the_mode_or_rules() {
        let out = json!({"command": "make install", "dangerously_disable_sandbox": true});
        let camel = json!({"command": "make install", "dangerouslyDisableSandbox": true});
        for input in [&out, &camel] {
            for mode in [Mode::Default, Mode::AcceptEdits, Mode::BypassPermissions] {
                let d = decide(mode, &["Bash(make install)", "Bash"], &[], input, true);
                let Decision::Ask { reason } = d else {
                    panic!("{mode:?}: {d:?}");
                };
                assert!(reason.contains("WITHOUT the OS sandbox"), "{reason}");
                assert!(reason.ends_with(": make install"), "{reason}");
            }
            assert!(matches!(
                decide(Mode::DontAsk, &["Bash"], &[], input, true),
                Decision::Deny { .. }
            ));
            assert!(matches!(
                decide(Mode::BypassPermissions, &[], &["Bash(make:*)"], input, true),
                Decision::Deny { .. }
            ));
        }
        // Without the flag, or without a sandbox to leave, nothing changes.
        let plain = json!({"command": "make install"});
        assert_eq!(
            decide(Mode::BypassPermissions, &[], &[], &plain, true),
            Decision::Allow
        );
        assert_eq!(
            decide(Mode::BypassPermissions, &[], &[], &out, false),
            Decision::Allow
        );
        let off = json!({"command": "make install", "dangerously_disable_sandbox": false});
        assert_eq!(
            decide(Mode::BypassPermissions, &[], &[], &off, true),
            Decision::Allow
        );
    }
}
