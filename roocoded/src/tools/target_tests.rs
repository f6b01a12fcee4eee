//! The permission target of every built-in tool is computed from its typed arguments,
//! and is what the Value-based code before typed tools computed from the same JSON.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::bash::BashArgs;
use super::glob::GlobArgs;
use super::read::ReadArgs;
use super::test_support::{Project, builtin_inputs};
use super::webfetch::WebFetchArgs;
use super::{
    BashTool, GlobTool, PermissionTarget, ReadTool, Registry, ToolContext, TypedTool, WebFetchTool,
};

/// The targets as the Value-based `permission_target` methods computed them, kept here
/// as the reference.
fn old_target(tool: &str, input: &Value, ctx: &ToolContext) -> PermissionTarget {
    let str_of = |key: &str| input.get(key).and_then(Value::as_str);
    match tool {
        "Read" => PermissionTarget::Path {
            path: ctx.resolve(str_of("file_path").unwrap_or_default()),
            write: false,
        },
        "Write" | "Edit" => PermissionTarget::Path {
            path: ctx.resolve(str_of("file_path").unwrap_or_default()),
            write: true,
        },
        "Grep" => PermissionTarget::Path {
            path: ctx.resolve(str_of("path").unwrap_or("")),
            write: false,
        },
        "Glob" => {
            // The walked directory: the pattern's leading literal components moved into it.
            let mut dir = ctx.resolve(str_of("path").unwrap_or(""));
            let parts: Vec<&str> = str_of("pattern").unwrap_or("").split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                if i + 1 == parts.len() || part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
                    break;
                }
                match *part {
                    "" if i == 0 => dir = PathBuf::from("/"),
                    "" | "." => {}
                    literal => dir.push(literal),
                }
            }
            PermissionTarget::Path {
                path: dir,
                write: false,
            }
        }
        "Bash" => PermissionTarget::Command(str_of("command").unwrap_or_default().to_string()),
        "WebFetch" => PermissionTarget::Url(str_of("url").unwrap_or_default().to_string()),
        _ => PermissionTarget::None,
    }
}

#[test]
fn every_target_from_typed_args_matches_the_value_based_one() {
    let project = Project::new();
    let mut ctx = project.ctx.clone();
    ctx.scope.cwd = project.root.join("sub");
    let registry = Registry::with_builtins();
    let mut seen = std::collections::BTreeSet::new();
    for (tool, input) in builtin_inputs() {
        let prepared = registry.prepare(tool, &input, &ctx).unwrap();
        assert_eq!(
            prepared.target,
            old_target(tool, &input, &ctx),
            "{tool} {input}"
        );
        assert_eq!(&*prepared.spec.name, tool);
        seen.insert(tool);
    }
    assert_eq!(seen.len(), registry.names().len(), "a tool has no case");
}

#[test]
fn targets_and_facts_come_from_typed_args() {
    let project = Project::new();
    let ctx = &project.ctx;
    let read = ReadArgs {
        file_path: "a.rs".into(),
        offset: None,
        limit: None,
    };
    assert_eq!(
        ReadTool.target(&read, ctx),
        PermissionTarget::Path {
            path: project.root.join("a.rs"),
            write: false
        }
    );
    let glob = GlobArgs {
        pattern: "src/**/*.rs".into(),
        path: None,
    };
    assert_eq!(
        GlobTool.target(&glob, ctx),
        PermissionTarget::Path {
            path: project.root.join("src"),
            write: false
        }
    );
    let fetch = WebFetchArgs {
        url: "https://example.com".into(),
        prompt: None,
    };
    assert_eq!(
        WebFetchTool.target(&fetch, ctx),
        PermissionTarget::Url("https://example.com".into())
    );
    let mut bash: BashArgs =
        serde_json::from_value(json!({"command": "make", "dangerously_disable_sandbox": true}))
            .unwrap();
    assert_eq!(
        BashTool.target(&bash, ctx),
        PermissionTarget::Command("make".into())
    );
    assert!(bash.unsandboxed());
    bash.dangerously_disable_sandbox = None;
    assert!(!bash.unsandboxed());
    bash.dangerously_disable_sandbox_camel = Some(true);
    assert!(bash.unsandboxed());

    // What the executor hands the gate, computed once when the call is prepared.
    let registry = Registry::with_builtins();
    let input = json!({"command": "make", "dangerouslyDisableSandbox": true});
    let prepared = registry.prepare("Bash", &input, ctx).unwrap();
    let call = prepared.call(&input);
    assert_eq!(call.tool, "Bash");
    assert_eq!(call.effect, crate::permission::Effect::RunCommands);
    assert!(call.unsandboxed);
    assert!(!prepared.concurrency_safe);
    assert!(
        registry
            .prepare("Read", &json!({"file_path": "a"}), ctx)
            .unwrap()
            .concurrency_safe
    );
}
