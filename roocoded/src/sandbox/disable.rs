//! Bash's `dangerously_disable_sandbox: true` (also `dangerouslyDisableSandbox`, Claude
//! Code's spelling): running a command outside the OS sandbox is its own permission
//! question, showing the command. No rule and no mode answers it — `bypassPermissions`
//! and an allow rule for the command still ask; `dontAsk` denies; a deny still denies.

use serde_json::Value;

use crate::permission::{Call, Decided, DecidedBy, Decision, Mode, PermissionTarget, Place, modes};

/// Both spellings of the parameter.
pub const PARAMS: &[&str] = &["dangerously_disable_sandbox", "dangerouslyDisableSandbox"];

/// True if the Bash input asks to run outside the sandbox (what [`Call::unsandboxed`]
/// says).
pub fn requested(input: &Value) -> bool {
    PARAMS
        .iter()
        .any(|p| input.get(p).and_then(Value::as_bool) == Some(true))
}

/// The final decision for a call the layers decided as `decided`: a call asking to
/// leave a real sandbox is asked (denied in `dontAsk`) unless the layers denied it,
/// and then says it was this question that decided ([`DecidedBy::NoOsSandbox`], with
/// the layers' answer as `before`).
pub fn review(decided: Decided, mode: Mode, call: &Call<'_>, place: &Place<'_>) -> Decided {
    // Only a real sandbox can be disabled; without one the flag changes nothing.
    if !call.unsandboxed || !place.confined {
        return decided;
    }
    let command = match call.target {
        PermissionTarget::Command(line) => line.as_str(),
        _ => "",
    };
    let question = format!(
        "Run WITHOUT the OS sandbox (it could write anywhere you can and read your \
         credentials): {command}"
    );
    let decision = match decided.decision {
        Decision::Deny { .. } => return decided,
        Decision::Allow => modes::ask(mode, question),
        Decision::Ask { reason } => modes::ask(mode, format!("{question} — also: {reason}")),
    };
    Decided::new(
        decision,
        DecidedBy::NoOsSandbox {
            before: Box::new(decided.by),
        },
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::permission::{Effect, GateSettings, PermissionGate, Rules, Scope};

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
        let command = input["command"].as_str().unwrap().to_string();
        let target = PermissionTarget::Command(command);
        let call = Call {
            tool: "Bash",
            effect: Effect::RunCommands,
            target: &target,
            input,
            unsandboxed: requested(input),
        };
        let scope = Scope::new("/tmp".into(), "/tmp".into());
        let place = Place {
            scope: &scope,
            shell_cwd: Path::new("/tmp"),
            confined,
        };
        gate.check(&call, &place)
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
