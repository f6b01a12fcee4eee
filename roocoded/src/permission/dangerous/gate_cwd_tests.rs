//! Layer 1 through the whole gate judges a command's paths from the directory the
//! session's shell is in (a previous `Bash` call's `cd` included), not from the
//! session's starting directory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use crate::permission::PermissionTarget;
use crate::permission::{Decision, Mode, PermissionGate};
use crate::tools::test_support::{FakeTool, Project};

fn bash(line: &str) -> FakeTool {
    let mut tool = FakeTool::new("Bash", json!({"type": "object"}));
    tool.target = PermissionTarget::Command(line.into());
    tool
}

#[test]
fn a_previous_cd_counts() {
    let project = Project::new();
    let deep = project.root.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let gate = PermissionGate::new(Mode::BypassPermissions);
    let line = "rm -rf ../../../proj";
    let check = |ctx| gate.check(&bash(line), &json!({}), ctx);
    // From the project root the line names a directory that is not the project.
    assert_eq!(check(&project.ctx), Decision::Allow);
    // After `cd src/deep` in an earlier call it names the project itself.
    assert!(
        project
            .ctx
            .shell
            .settle_dir(deep.clone(), &project.ctx)
            .is_none()
    );
    assert!(
        matches!(check(&project.ctx), Decision::Deny { .. }),
        "{:?}",
        check(&project.ctx)
    );
    // A remembered directory that is gone falls back to the root, like the shell does.
    std::fs::remove_dir_all(project.root.join("src")).unwrap();
    assert_eq!(check(&project.ctx), Decision::Allow);
}
