//! Tests of the TodoWrite tool and the todo list.

use serde_json::json;

use super::{TodoItem, TodoStatus};
use crate::tools::ToolError;
use crate::tools::test_support::Project;

fn item(content: &str, status: TodoStatus, active: &str) -> TodoItem {
    TodoItem {
        content: content.to_string(),
        status,
        active_form: active.to_string(),
    }
}

#[tokio::test]
async fn replaces_the_list_and_renders_it() {
    let p = Project::new();
    let out = p
        .ok(
            "TodoWrite",
            json!({"todos": [
                {"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
                {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
                {"content": "Update the docs", "status": "pending", "activeForm": "Updating the docs"}
            ]}),
        )
        .await;
    assert_eq!(
        out,
        "Todo list updated (1/3 completed):\n\
         [x] Write the parser\n\
         [>] Run the tests\n\
         [ ] Update the docs"
    );
    assert_eq!(
        p.ctx.todos.snapshot(),
        [
            item(
                "Write the parser",
                TodoStatus::Completed,
                "Writing the parser"
            ),
            item("Run the tests", TodoStatus::InProgress, "Running the tests"),
            item("Update the docs", TodoStatus::Pending, "Updating the docs"),
        ]
    );
    let out = p.ok("TodoWrite", json!({"todos": []})).await;
    assert_eq!(out, "Todo list cleared.");
    assert!(p.ctx.todos.snapshot().is_empty());
}

#[tokio::test]
async fn at_most_one_task_is_in_progress() {
    let p = Project::new();
    p.ctx
        .todos
        .replace(vec![item("Keep", TodoStatus::Pending, "Keeping")]);
    let err = p
        .run(
            "TodoWrite",
            json!({"todos": [
                {"content": "A", "status": "in_progress", "activeForm": "Doing A"},
                {"content": "B", "status": "in_progress", "activeForm": "Doing B"}
            ]}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidInput(
            "2 tasks are in_progress (A; B); at most one may be. Keep the one you are working \
             on in_progress and set the others to pending or completed."
                .to_string()
        )
    );
    assert_eq!(
        p.ctx.todos.snapshot(),
        [item("Keep", TodoStatus::Pending, "Keeping")],
        "a refused call leaves the list alone"
    );
}

#[test]
fn items_serialise_with_the_contract_names() {
    let json = serde_json::to_value(item("A", TodoStatus::InProgress, "Doing A")).unwrap();
    assert_eq!(
        json,
        json!({"content": "A", "status": "in_progress", "activeForm": "Doing A"})
    );
}

#[test]
fn schema_rejects_unknown_fields_and_statuses() {
    let registry = crate::tools::Registry::with_builtins();
    let todo = json!({"content": "A", "status": "pending", "activeForm": "Doing A"});
    assert_eq!(
        registry.validate("TodoWrite", &json!({"todos": [todo]})),
        Ok(())
    );
    assert_eq!(
        registry.validate(
            "TodoWrite",
            &json!({"todos": [{"content": "A", "status": "pending", "activeForm": "Doing A", "id": "1"}]})
        ),
        Err("Invalid input for tool TodoWrite:\n\
             - /todos/0: Additional properties are not allowed ('id' was unexpected); the valid parameters are activeForm, content, status"
            .to_string())
    );
    let err = registry
        .validate(
            "TodoWrite",
            &json!({"todos": [{"content": "A", "status": "done", "activeForm": "Doing A"}]}),
        )
        .unwrap_err();
    assert!(
        err.starts_with("Invalid input for tool TodoWrite:\n- /todos/0/status: "),
        "{err}"
    );
    assert_eq!(
        registry.validate("TodoWrite", &json!({"todos": [], "merge": true})),
        Err("Invalid input for tool TodoWrite:\n\
             - (root): Additional properties are not allowed ('merge' was unexpected); the valid parameters are todos"
            .to_string())
    );
}
