//! [`SkillCommandTool`]: one tool of a skill's `tool.json` (see `crate::skills::SkillTool`)
//! as the model calls it while the skill runs, under the name `skill__<skill>__<tool>`.
//!
//! A call is a command: its argument vector is the tool's `command` with the call's
//! values in place of the `{{param}}`s, the arguments also go to its standard input as
//! JSON, and it is checked as a `Bash` call running that command line would be —
//! dangerous commands refused, `Bash(...)` rules matching it, asked in the default
//! mode — then run in the session's OS sandbox (never outside it), in the session's
//! directory, with the skill's own folder readable. A relative program path with a `/`
//! (`scripts/lint.sh`) is the skill's own file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde_json::Value;

use super::bash::{DEFAULT_TIMEOUT_MS, Program, run_program};
use super::{
    Effect, Invocation, PermissionTarget, Prepared, Spec, Tool, ToolCategory, ToolContext,
    ToolError, ToolOutput,
};
use crate::skills::SkillTool;

/// What every skill tool's name starts with.
pub const PREFIX: &str = "skill__";

/// Longest tool name a provider accepts.
const MAX_NAME: usize = 64;

/// One tool of one skill.
pub struct SkillCommandTool {
    spec: Spec,
    tool: SkillTool,
    /// The skill's folder.
    dir: PathBuf,
}

impl SkillCommandTool {
    /// `tool` of the skill `skill` whose folder is `dir`; the error says why it cannot
    /// be offered (a name too long for the providers).
    pub fn new(skill: &str, dir: &Path, tool: SkillTool) -> Result<Self, String> {
        let name = format!("{PREFIX}{skill}__{}", tool.name);
        if name.len() > MAX_NAME {
            return Err(format!(
                "the tool `{}` of the skill `{skill}` is not offered: `{name}` is longer than \
                 {MAX_NAME} characters (shorten the skill's or the tool's name)",
                tool.name
            ));
        }
        let description = format!(
            "{}\n\n(A tool of the skill `{skill}`: runs `{}`; the arguments are also given \
             as JSON on its standard input.)",
            tool.description,
            tool.command.join(" ")
        );
        Ok(Self {
            spec: Spec::new(
                name,
                description,
                Effect::RunCommands,
                ToolCategory::Command,
            )
            .gated_as("Bash"),
            tool,
            dir: dir.to_path_buf(),
        })
    }

    /// The argument vector of a call, its program resolved against the skill's folder
    /// when it is a relative path.
    fn argv(&self, input: &Value) -> Result<Vec<String>, String> {
        let mut argv = self.tool.argv(input)?;
        if let Some(program) = argv.first_mut() {
            let path = Path::new(program.as_str());
            if path.is_relative() && program.contains('/') {
                *program = self.dir.join(path).to_string_lossy().into_owned();
            }
        }
        Ok(argv)
    }
}

impl Tool for SkillCommandTool {
    fn spec(&self) -> Spec {
        self.spec.clone()
    }

    fn input_schema(&self) -> Value {
        self.tool.input_schema.clone()
    }

    fn schema_as_given(&self) -> bool {
        true
    }

    fn prepare(&self, input: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let argv = self.argv(input).map_err(ToolError::InvalidInput)?;
        let line = shlex::try_join(argv.iter().map(String::as_str)).map_err(|e| {
            ToolError::InvalidInput(format!("an argument cannot be shown as a command: {e}"))
        })?;
        let timeout = self
            .tool
            .timeout
            .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
        Ok(Prepared {
            spec: self.spec.clone(),
            target: PermissionTarget::Command(line),
            concurrency_safe: false,
            unsandboxed: false,
            invocation: Box::new(Call {
                argv,
                stdin: input.to_string(),
                dir: self.dir.clone(),
                timeout,
            }),
        })
    }
}

/// One prepared call.
struct Call {
    argv: Vec<String>,
    stdin: String,
    /// The skill's folder.
    dir: PathBuf,
    timeout: Duration,
}

impl Invocation for Call {
    fn run<'a>(
        self: Box<Self>,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let vars = BTreeMap::from([
                (
                    "ROOCODE_SKILL_DIR".to_string(),
                    self.dir.to_string_lossy().into_owned(),
                ),
                (
                    "ROOCODE_PROJECT_DIR".to_string(),
                    ctx.scope.root.to_string_lossy().into_owned(),
                ),
            ]);
            run_program(
                ctx,
                Program {
                    argv: &self.argv,
                    stdin: &self.stdin,
                    dir: &ctx.scope.cwd,
                    timeout: self.timeout,
                    readable: Some(self.dir.clone()),
                    vars,
                },
            )
            .await
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(command: &[&str]) -> SkillTool {
        SkillTool {
            name: "lint".into(),
            description: "Lint one file".into(),
            input_schema: json!({"type": "object",
                "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            command: command.iter().map(|s| s.to_string()).collect(),
            timeout: None,
        }
    }

    #[test]
    fn a_skill_tool_is_named_after_its_skill_and_gated_as_bash() {
        let t =
            SkillCommandTool::new("style", Path::new("/s"), tool(&["eslint", "{{path}}"])).unwrap();
        assert_eq!(&*t.spec().name, "skill__style__lint");
        assert_eq!(t.spec().gated_as.as_deref(), Some("Bash"));
        assert_eq!(t.spec().effect, Effect::RunCommands);
        let long = "a".repeat(60);
        let err = SkillCommandTool::new(&long, Path::new("/s"), tool(&["x"]))
            .err()
            .unwrap();
        assert!(err.contains("longer than 64"), "{err}");
    }

    #[test]
    fn a_relative_program_is_the_skills_own_file() {
        let own = SkillCommandTool::new(
            "s",
            Path::new("/skills/s"),
            tool(&["bin/lint.sh", "{{path}}"]),
        )
        .unwrap();
        assert_eq!(
            own.argv(&json!({"path": "a b.rs"})).unwrap(),
            ["/skills/s/bin/lint.sh", "a b.rs"]
        );
        let on_path =
            SkillCommandTool::new("s", Path::new("/skills/s"), tool(&["eslint", "{{path}}"]))
                .unwrap();
        assert_eq!(
            on_path.argv(&json!({"path": "x"})).unwrap(),
            ["eslint", "x"]
        );
    }
}
