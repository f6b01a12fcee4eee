//! Layer 1 through the whole gate judges a command's paths from the directory the
//! session's shell is in (a previous `Bash` call's `cd` included), not from the
//! session's starting directory. The directory is the one the tools' shell state
//! reports ([`Place::shell_cwd`]), so this test runs with a real tool context.

use crate::permission::test_support::{Facts, Project};
use crate::permission::{Decision, Mode, PermissionGate, Place};
use crate::tools::ToolContext;

#[test]
fn a_previous_cd_counts() {
    let project = Project::new();
    let deep = project.root.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let ctx = ToolContext::new("test", project.root.clone(), project.root.clone());
    let gate = PermissionGate::new(Mode::BypassPermissions);
    let facts = Facts::command("rm -rf ../../../proj");
    let check = |ctx: &ToolContext| {
        let shell_cwd = ctx.shell.next_dir(ctx);
        let place = Place {
            scope: &ctx.scope,
            shell_cwd: &shell_cwd,
            confined: false,
        };
        gate.check(&facts.call(), &place)
    };
    // From the project root the line names a directory that is not the project.
    assert_eq!(check(&ctx), Decision::Allow);
    // After `cd src/deep` in an earlier call it names the project itself.
    assert!(ctx.shell.settle_dir(deep, &ctx).is_none());
    assert!(
        matches!(check(&ctx), Decision::Deny { .. }),
        "{:?}",
        check(&ctx)
    );
    // A remembered directory that is gone falls back to the root, like the shell does.
    std::fs::remove_dir_all(project.root.join("src")).unwrap();
    assert_eq!(check(&ctx), Decision::Allow);
}
