//! Tests of the gate's layer order on real temp directories.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;
use crate::tools::test_support::{FakeTool, Project};
use crate::tools::{GlobTool, GrepTool, ReadTool};

#[test]
fn read_inside_is_allowed_and_outside_denied() {
    let project = Project::new();
    project.write("a.txt", "hi\n");
    let gate = PermissionGate::new("default");
    assert_eq!(
        gate.check(&ReadTool, &json!({"file_path": "a.txt"}), &project.ctx),
        Decision::Allow
    );
    assert_eq!(
        gate.check(
            &ReadTool,
            &json!({"file_path": "/etc/passwd"}),
            &project.ctx
        ),
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
    assert_eq!(
        gate.check(&GrepTool, &json!({"pattern": "x"}), &project.ctx),
        Decision::Allow
    );
    assert!(matches!(
        gate.check(
            &GrepTool,
            &json!({"pattern": "x", "path": "/etc"}),
            &project.ctx
        ),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        gate.check(
            &GlobTool,
            &json!({"pattern": "*", "path": ".."}),
            &project.ctx
        ),
        Decision::Deny { .. }
    ));
    // The literal directory prefix of a pattern is where Glob walks: sandboxed too.
    assert!(matches!(
        gate.check(&GlobTool, &json!({"pattern": "../../etc/*"}), &project.ctx),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        gate.check(
            &GlobTool,
            &json!({"pattern": "/etc/**/*.conf"}),
            &project.ctx
        ),
        Decision::Deny { .. }
    ));
}

#[test]
fn non_read_only_tools_ask_and_the_sandbox_comes_first() {
    let project = Project::new();
    let gate = PermissionGate::new("default");
    let inside = project.path("new.txt");
    assert_eq!(
        gate.check(
            &FakeTool::writing("Write", &inside),
            &json!({}),
            &project.ctx
        ),
        Decision::Ask {
            reason: format!("Write wants to write {}", inside.display())
        }
    );
    let outside = FakeTool::writing("Write", std::path::Path::new("/etc/new.conf"));
    assert!(matches!(
        gate.check(&outside, &json!({}), &project.ctx),
        Decision::Deny { .. }
    ));
    let mut command = FakeTool::new("Bash", json!({"type": "object"}));
    command.target = PermissionTarget::Command("ls".into());
    assert_eq!(
        gate.check(&command, &json!({}), &project.ctx),
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
