//! [`load`]: the six files in order, with their scopes, read once when the project is
//! the home directory, and problems that do not stop the other files.

use std::fs;
use std::path::Path;

use super::load;
use crate::hooks::{HookAction, HookEvent, HookScope, HookSet};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn yaml(command: &str) -> String {
    format!(
        "model: x\nhooks:\n  - event: pre_tool_use\n    action: {{type: command, command: {command}}}\n"
    )
}

fn json(command: &str) -> String {
    format!(
        r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "{command}"}}]}}]}}}}"#
    )
}

/// (command, scope, claude) of every hook.
fn summary(set: &HookSet) -> Vec<(String, HookScope, bool)> {
    set.hooks
        .iter()
        .map(|h| match &h.action {
            HookAction::Command { command, .. } => {
                (command.clone(), h.source.scope, h.source.claude)
            }
            HookAction::Inject { text } => (text.clone(), h.source.scope, h.source.claude),
        })
        .collect()
}

#[test]
fn reads_six_files_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    write(&home.join(".roocode/config.yaml"), &yaml("user-yaml"));
    write(&home.join(".claude/settings.json"), &json("user-json"));
    write(&project.join(".roocode/config.yaml"), &yaml("project-yaml"));
    write(
        &project.join(".claude/settings.json"),
        &json("project-json"),
    );
    write(
        &project.join(".roocode/config.local.yaml"),
        &yaml("local-yaml"),
    );
    write(
        &project.join(".claude/settings.local.json"),
        &json("local-json"),
    );
    let set = load(&home.join(".roocode"), &home, &project);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let s = |c: &str, scope, claude| (c.to_string(), scope, claude);
    assert_eq!(
        summary(&set),
        [
            s("user-yaml", HookScope::User, false),
            s("user-json", HookScope::User, true),
            s("project-yaml", HookScope::Project, false),
            s("project-json", HookScope::Project, true),
            s("local-yaml", HookScope::Local, false),
            s("local-json", HookScope::Local, true),
        ]
    );
    assert_eq!(set.for_event(HookEvent::PreToolUse).count(), 6);
    assert_eq!(set.for_event(HookEvent::Stop).count(), 0);
    assert_eq!(
        set.hooks[2].source.path,
        project.join(".roocode/config.yaml")
    );
    let id = set.hooks[3].id();
    assert_eq!(
        set.get(&id).map(|h| h.source.scope),
        Some(HookScope::Project)
    );
    assert!(set.get("nope").is_none());
}

#[test]
fn missing_files_are_fine() {
    let tmp = tempfile::tempdir().unwrap();
    let set = load(
        &tmp.path().join("a/.roocode"),
        &tmp.path().join("a"),
        &tmp.path().join("b"),
    );
    assert!(set.hooks.is_empty() && set.problems.is_empty());
}

#[test]
fn home_as_project_reads_each_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    write(&home.join(".roocode/config.yaml"), &yaml("once-yaml"));
    write(&home.join(".claude/settings.json"), &json("once-json"));
    let set = load(&home.join(".roocode"), home, home);
    assert_eq!(
        summary(&set),
        [
            ("once-yaml".to_string(), HookScope::User, false),
            ("once-json".to_string(), HookScope::User, true),
        ]
    );
}

#[test]
fn a_broken_file_does_not_stop_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    write(&home.join(".roocode/config.yaml"), "hooks: [\n");
    write(&project.join(".roocode/config.yaml"), &yaml("fine"));
    // a directory where a file is expected cannot be read
    fs::create_dir_all(project.join(".claude/settings.json")).unwrap();
    let set = load(&home.join(".roocode"), &home, &project);
    assert_eq!(
        summary(&set),
        [("fine".to_string(), HookScope::Project, false)]
    );
    assert_eq!(set.problems.len(), 2, "{:?}", set.problems);
    assert_eq!(set.problems[0].path, home.join(".roocode/config.yaml"));
    assert!(set.problems[0].message.starts_with("invalid YAML"));
    assert_eq!(set.problems[1].path, project.join(".claude/settings.json"));
    assert_eq!(set.problems[1].line, None);
    assert!(set.problems[1].to_string().contains("cannot read the file"));
}
