//! Tests of the `Memory` tool, run like the agent loop runs it (validate, then execute).

use serde_json::json;

use crate::memory::{MemoryDirs, MemoryType, auto};
use crate::tools::test_support::Project;
use crate::tools::test_support::prepared;
use crate::tools::{MemoryTool, PermissionTarget, Registry, ToolCategory, ToolError};

fn project() -> (Project, MemoryDirs) {
    let mut p = Project::new();
    let dirs = MemoryDirs::new(&p.root.join("../home/.roocode"), &p.root);
    p.ctx.memory_dirs = Some(dirs.clone());
    (p, dirs)
}

fn invalid(result: Result<crate::tools::ToolOutput, ToolError>) -> String {
    match result {
        Err(ToolError::InvalidInput(message)) => message,
        other => panic!("expected invalid input, got {other:?}"),
    }
}

#[tokio::test]
async fn save_update_delete_round_trip() {
    let (p, dirs) = project();
    let out = p
        .ok(
            "Memory",
            json!({"action": "save", "name": "Package manager", "type": "user",
                   "description": "Use pnpm, never npm", "content": "Always use pnpm."}),
        )
        .await;
    let file = dirs.user.join("package-manager.md");
    assert_eq!(
        out,
        format!(
            "Saved user memory \"Package manager\" to {} (index: {}).",
            file.display(),
            dirs.user.join("MEMORY.md").display()
        )
    );
    assert!(file.is_file());

    let out = p
        .ok(
            "Memory",
            json!({"action": "update", "name": "package manager", "type": "project",
                   "content": "This repo uses pnpm workspaces."}),
        )
        .await;
    let moved = dirs.project.join("package-manager.md");
    assert_eq!(
        out,
        format!(
            "Updated project memory \"Package manager\" at {}.",
            moved.display()
        )
    );
    assert!(!file.exists());
    let entries = auto::list(&dirs).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].memory_type, MemoryType::Project);
    assert_eq!(entries[0].description, "Use pnpm, never npm");
    assert_eq!(entries[0].content, "This repo uses pnpm workspaces.");

    let out = p
        .ok(
            "Memory",
            json!({"action": "delete", "name": "Package manager"}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "Deleted project memory \"Package manager\" ({} removed).",
            moved.display()
        )
    );
    assert!(auto::list(&dirs).unwrap().is_empty());
}

#[tokio::test]
async fn save_requires_type_description_and_content() {
    let (p, dirs) = project();
    let message = invalid(
        p.run(
            "Memory",
            json!({"action": "save", "name": "X", "type": "feedback", "description": "d"}),
        )
        .await,
    );
    assert_eq!(
        message,
        "action \"save\" requires type, description and content; missing: content"
    );
    let message = invalid(
        p.run("Memory", json!({"action": "save", "name": "X"}))
            .await,
    );
    assert!(
        message.ends_with("missing: type, description, content"),
        "{message}"
    );
    assert!(auto::list(&dirs).unwrap().is_empty());
}

#[tokio::test]
async fn duplicates_and_unknown_names_are_explained() {
    let (p, _dirs) = project();
    let save = json!({"action": "save", "name": "Deploy", "type": "project",
                      "description": "how to deploy", "content": "make deploy"});
    p.ok("Memory", save.clone()).await;
    let message = invalid(p.run("Memory", save).await);
    assert!(message.contains("already exists"), "{message}");
    assert!(message.contains("use action \"update\""), "{message}");
    let message = invalid(
        p.run("Memory", json!({"action": "delete", "name": "Nope"}))
            .await,
    );
    assert_eq!(
        message,
        "no memory named \"Nope\"; check the names in the memory index, or use action \
         \"save\" for a new memory"
    );
    let message = invalid(
        p.run("Memory", json!({"action": "update", "name": "Deploy"}))
            .await,
    );
    assert!(message.contains("nothing to update"), "{message}");
}

#[tokio::test]
async fn without_memory_directories_it_fails_clearly() {
    let p = Project::new();
    let err = p
        .run("Memory", json!({"action": "delete", "name": "X"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)));
    assert!(err.to_string().contains("memory is not available"), "{err}");
}

#[test]
fn schema_rejects_unknown_fields_and_bad_values() {
    let registry = Registry::with_builtins();
    assert_eq!(
        registry.validate(
            "Memory",
            &json!({"action": "save", "name": "n", "type": "user",
                    "description": "d", "content": "c"})
        ),
        Ok(())
    );
    let err = registry
        .validate(
            "Memory",
            &json!({"action": "delete", "name": "n", "path": "/etc/passwd"}),
        )
        .unwrap_err();
    assert_eq!(
        err,
        "Invalid input for tool Memory:\n\
         - (root): Additional properties are not allowed ('path' was unexpected); the valid parameters are action, content, description, name, type"
    );
    let err = registry
        .validate(
            "Memory",
            &json!({"action": "forget", "name": "n", "type": "team"}),
        )
        .unwrap_err();
    assert!(err.contains("- /action: "), "{err}");
    assert!(err.contains("- /type: "), "{err}");
    let err = registry
        .validate("Memory", &json!({"action": "save"}))
        .unwrap_err();
    assert!(err.contains("\"name\" is a required property"), "{err}");
}

#[test]
fn traits() {
    let (p, _dirs) = project();
    let input = json!({"action": "save", "name": "n"});
    // It writes only RooCode's own memory files: allowed like TodoWrite.
    let memory = prepared(&MemoryTool, &input, &p.ctx);
    assert!(memory.spec.effect.is_read_only());
    assert!(!memory.concurrency_safe);
    assert_eq!(memory.spec.category, ToolCategory::File);
    assert_eq!(memory.target, PermissionTarget::None);
    for word in ["pnpm", "feedback", "secret", "git history", "NOT"] {
        assert!(memory.spec.description.contains(word), "{word}");
    }
}
