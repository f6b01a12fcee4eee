//! Test helpers of the tool tests: a project in a temp directory and a configurable
//! fake tool.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{
    Effect, PermissionTarget, Registry, Tool, ToolCategory, ToolContext, ToolError, ToolOutput,
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
        registry
            .validate(name, &input)
            .map_err(ToolError::InvalidInput)?;
        let tool = registry.get(name).unwrap();
        tool.execute(input, &self.ctx).await
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

impl Tool for FakeTool {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "a fake tool for tests"
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn effect(&self) -> Effect {
        if self.read_only {
            Effect::ReadFiles
        } else {
            Effect::WriteFiles
        }
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.read_only
    }
    fn category(&self) -> ToolCategory {
        ToolCategory::File
    }
    fn permission_target(&self, _input: &Value, _ctx: &ToolContext) -> PermissionTarget {
        self.target.clone()
    }
    fn execute<'a>(
        &'a self,
        _input: Value,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async { Ok(ToolOutput::text("done")) }.boxed()
    }
}
