//! Test helpers of the tool tests: a project in a temp directory and a configurable
//! fake tool.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{
    Effect, Invocation, PermissionTarget, Prepared, Registry, Spec, Tool, ToolCategory,
    ToolContext, ToolError, ToolOutput,
};

/// A project root in a fresh temp directory (canonical path), with a context whose cwd
/// and root are that directory.
pub(crate) struct Project {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub ctx: ToolContext,
}

impl Project {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("proj");
        std::fs::create_dir(&root).unwrap();
        let ctx = ToolContext::new("test", root.clone(), root.clone());
        Self {
            _dir: dir,
            root,
            ctx,
        }
    }

    /// Write `content` at `rel`, creating parent directories.
    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Set a file's modification time to `secs` seconds after an arbitrary epoch.
    pub(crate) fn touch(&self, rel: &str, secs: u64) {
        let file = std::fs::File::options()
            .write(true)
            .open(self.root.join(rel))
            .unwrap();
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000 + secs);
        file.set_modified(time).unwrap();
    }

    /// Validate `input` like the agent loop does, then run the built-in tool `name`.
    pub(crate) async fn run(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let registry = Registry::with_builtins();
        let call = registry
            .prepare(name, &input, &self.ctx)
            .map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        call.run(&self.ctx).await
    }

    /// The text of a successful run; panics with the error otherwise.
    pub(crate) async fn ok(&self, name: &str, input: Value) -> String {
        match self.run(name, input).await {
            Ok(out) => {
                assert!(!out.is_error, "error output: {}", out.content);
                out.content
            }
            Err(e) => panic!("{name} failed: {e:?}"),
        }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// `input` prepared by `tool` (it must be valid): its spec and permission facts.
pub(crate) fn prepared(tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> Prepared {
    tool.prepare(input, ctx).unwrap()
}

/// Valid inputs for every built-in tool, several where the target depends on them.
/// The built-in tools' names, in the registry's order.
pub(crate) const BUILTIN_NAMES: [&str; 23] = [
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "Bash",
    "BashOutput",
    "KillShell",
    "WebFetch",
    "TodoWrite",
    "AskUserQuestion",
    "ExitPlanMode",
    "Memory",
    "Agent",
    "TaskList",
    "TaskGet",
    "TaskStop",
    "TeamCreate",
    "TeamDelete",
    "TaskCreate",
    "TaskUpdate",
    "SendMessage",
    "Skill",
];

pub(crate) fn builtin_inputs() -> Vec<(&'static str, Value)> {
    vec![
        ("Read", serde_json::json!({"file_path": "src/a.rs"})),
        (
            "Read",
            serde_json::json!({"file_path": "/etc/hosts", "offset": 2, "limit": 3}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": "new.txt", "content": "x"}),
        ),
        (
            "Edit",
            serde_json::json!({"file_path": "../b.rs", "old_string": "a", "new_string": "b"}),
        ),
        ("Glob", serde_json::json!({"pattern": "**/*.rs"})),
        (
            "Glob",
            serde_json::json!({"pattern": "src/**/*.rs", "path": "sub"}),
        ),
        ("Glob", serde_json::json!({"pattern": "/abs/dir/*.md"})),
        ("Glob", serde_json::json!({"pattern": "./a/b/c.txt"})),
        ("Grep", serde_json::json!({"pattern": "x"})),
        (
            "Grep",
            serde_json::json!({"pattern": "x", "path": "src", "-i": true, "-C": 2}),
        ),
        (
            "Bash",
            serde_json::json!({"command": "git status", "dangerouslyDisableSandbox": true}),
        ),
        ("BashOutput", serde_json::json!({"bash_id": "bash_1"})),
        ("KillShell", serde_json::json!({"bash_id": "bash_1"})),
        (
            "WebFetch",
            serde_json::json!({"url": "https://example.com/a", "prompt": "?"}),
        ),
        (
            "TodoWrite",
            serde_json::json!({"todos": [{"content": "a", "status": "pending", "activeForm": "b"}]}),
        ),
        (
            "AskUserQuestion",
            serde_json::json!({"questions": [{"question": "q?", "header": "h", "multiSelect": false,
                "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}]}]}),
        ),
        ("ExitPlanMode", serde_json::json!({"plan": "- do it"})),
        (
            "Memory",
            serde_json::json!({"action": "delete", "name": "x"}),
        ),
        (
            "Agent",
            serde_json::json!({"prompt": "find the tests", "description": "find tests", "subagent_type": "Explore"}),
        ),
        ("TaskList", serde_json::json!({})),
        ("TaskGet", serde_json::json!({"task_id": "a1"})),
        ("TaskStop", serde_json::json!({"taskId": "a1"})),
        (
            "TeamCreate",
            serde_json::json!({"team_name": "alpha", "description": "the migration", "isolation": "worktree"}),
        ),
        ("TeamDelete", serde_json::json!({"team_name": "alpha"})),
        (
            "TaskCreate",
            serde_json::json!({"subject": "Add the error type", "description": "in src/error.rs", "add_blocked_by": [1, "#2"]}),
        ),
        (
            "TaskCreate",
            serde_json::json!({"subject": "s", "description": "", "addBlockedBy": ["1"], "activeForm": "Adding"}),
        ),
        (
            "TaskUpdate",
            serde_json::json!({"task_id": "3", "status": "in_progress", "owner": "builder"}),
        ),
        (
            "TaskUpdate",
            serde_json::json!({"taskId": 3, "addBlocks": [4], "addBlockedBy": ["#1"], "subject": "s", "description": "d", "activeForm": "a"}),
        ),
        (
            "SendMessage",
            serde_json::json!({"to": "builder", "message": "the parser is merged", "summary": "parser merged, go ahead with the lexer"}),
        ),
        (
            "SendMessage",
            serde_json::json!({"recipient": "lead", "type": "shutdown_response", "request_id": "shutdown-1", "approve": true}),
        ),
        ("Skill", serde_json::json!({"name": "commit"})),
        (
            "Skill",
            serde_json::json!({"name": "review", "arguments": "src/lib.rs"}),
        ),
    ]
}

/// A tool whose every property is chosen by the test.
pub(crate) struct FakeTool {
    pub name: &'static str,
    pub schema: Value,
    pub read_only: bool,
    pub target: PermissionTarget,
}

impl FakeTool {
    pub(crate) fn new(name: &'static str, schema: Value) -> Self {
        Self {
            name,
            schema,
            read_only: false,
            target: PermissionTarget::None,
        }
    }
}

/// A tool with a run-time schema, as MCP and skill tools will be: it implements the
/// erased [`Tool`] itself.
impl Tool for FakeTool {
    fn spec(&self) -> Spec {
        let effect = if self.read_only {
            Effect::ReadFiles
        } else {
            Effect::WriteFiles
        };
        Spec::new(
            self.name,
            "a fake tool for tests",
            effect,
            ToolCategory::File,
        )
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn prepare(&self, _input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        Ok(Prepared {
            spec: self.spec(),
            target: self.target.clone(),
            concurrency_safe: self.read_only,
            unsandboxed: false,
            invocation: Box::new(Done),
        })
    }
}

struct Done;

impl Invocation for Done {
    fn run<'a>(
        self: Box<Self>,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async { Ok(ToolOutput::text("done")) }.boxed()
    }
}
