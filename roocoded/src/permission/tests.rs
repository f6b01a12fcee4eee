//! Tests of the gate's layer order on real temp directories.

use serde_json::json;

use super::test_support::{Facts, Judge, Project};
use super::*;

#[test]
fn read_inside_is_allowed_and_outside_denied() {
    let project = Project::new();
    project.write("a.txt", "hi\n");
    let gate = PermissionGate::new("default");
    assert_eq!(
        gate.judge(&Facts::read("a.txt", &project.scope), &project.scope),
        Decision::Allow
    );
    assert_eq!(
        gate.judge(&Facts::read("/etc/passwd", &project.scope), &project.scope),
        Decision::Deny {
            reason: format!(
                "path /etc/passwd is outside the project root {}",
                project.root.display()
            )
        }
    );
}

#[test]
fn search_tools_are_sandboxed_on_their_directory() {
    let project = Project::new();
    let gate = PermissionGate::new("default");
    let check =
        |tool, input| gate.judge(&Facts::builtin(tool, input, &project.scope), &project.scope);
    assert_eq!(check("Grep", json!({"pattern": "x"})), Decision::Allow);
    assert!(matches!(
        check("Grep", json!({"pattern": "x", "path": "/etc"})),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        check("Glob", json!({"pattern": "*", "path": ".."})),
        Decision::Deny { .. }
    ));
    // The literal directory prefix of a pattern is where Glob walks: sandboxed too.
    assert!(matches!(
        check("Glob", json!({"pattern": "../../etc/*"})),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        check("Glob", json!({"pattern": "/etc/**/*.conf"})),
        Decision::Deny { .. }
    ));
}

#[test]
fn non_read_only_tools_ask_and_the_sandbox_comes_first() {
    let project = Project::new();
    let gate = PermissionGate::new("default");
    let inside = project.path("new.txt");
    assert_eq!(
        gate.judge(&Facts::writing("Write", &inside), &project.scope),
        Decision::Ask {
            reason: format!("Write wants to write {}", inside.display())
        }
    );
    let outside = Facts::writing("Write", std::path::Path::new("/etc/new.conf"));
    assert!(matches!(
        gate.judge(&outside, &project.scope),
        Decision::Deny { .. }
    ));
    let command = Facts::command("ls");
    assert_eq!(
        gate.judge(&command, &project.scope),
        Decision::Ask {
            reason: "Bash wants to run: ls".into()
        }
    );
}

#[test]
fn modes_parse_and_unknown_falls_back_to_default() {
    for name in [
        "default",
        "acceptEdits",
        "plan",
        "bypassPermissions",
        "dontAsk",
    ] {
        assert_eq!(PermissionGate::new(name).mode().as_str(), name);
    }
    assert_eq!(PermissionGate::new("yolo").mode(), Mode::Default);
}
