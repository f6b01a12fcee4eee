//! Test helpers of the permission tests: a project in a temp directory and the facts of
//! one call ([`Facts`]), owned, so a test states a call the way a tool would.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Call, Decided, Decision, Effect, PermissionGate, PermissionTarget, Place, Scope};

/// A project root in a fresh temp directory (canonical path), with a scope whose cwd and
/// root are that directory.
pub(crate) struct Project {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub scope: Scope,
}

impl Project {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("proj");
        std::fs::create_dir(&root).unwrap();
        Self {
            _dir: dir,
            scope: Scope::new(root.clone(), root.clone()),
            root,
        }
    }

    /// Write `content` at `rel`, creating parent directories.
    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// The gate's answer for owned facts.
pub(crate) trait Judge {
    /// The answer for `facts` in `scope`, the shell in its working directory and no OS
    /// sandbox.
    fn judge(&self, facts: &Facts, scope: &Scope) -> Decision;

    /// [`Judge::judge`] with the layer that answered.
    fn judge_decided(&self, facts: &Facts, scope: &Scope) -> Decided;
}

impl Judge for PermissionGate {
    fn judge(&self, facts: &Facts, scope: &Scope) -> Decision {
        let place = Place {
            scope,
            shell_cwd: &scope.cwd,
            confined: false,
        };
        self.check(&facts.call(), &place)
    }

    fn judge_decided(&self, facts: &Facts, scope: &Scope) -> Decided {
        let place = Place {
            scope,
            shell_cwd: &scope.cwd,
            confined: false,
        };
        self.check_decided(&facts.call(), &place)
    }
}

/// The facts of one call, owned (a [`Call`] borrows them).
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    pub tool: &'static str,
    pub effect: Effect,
    pub target: PermissionTarget,
    pub input: Value,
}

impl Facts {
    /// A call of `tool` with no target and no arguments that changes files (the mode
    /// layer asks for it).
    pub(crate) fn new(tool: &'static str) -> Self {
        Self {
            tool,
            effect: Effect::WriteFiles,
            target: PermissionTarget::None,
            input: json!({}),
        }
    }

    /// A Bash call running `line`.
    pub(crate) fn command(line: &str) -> Self {
        Self {
            effect: Effect::RunCommands,
            target: PermissionTarget::Command(line.into()),
            input: json!({ "command": line }),
            ..Self::new("Bash")
        }
    }

    /// A file tool writing `path`.
    pub(crate) fn writing(tool: &'static str, path: &Path) -> Self {
        Self {
            target: PermissionTarget::Path {
                path: path.to_path_buf(),
                write: true,
            },
            ..Self::new(tool)
        }
    }

    /// A `Read` of `file_path` as the model gives it (resolved against `scope`).
    pub(crate) fn read(file_path: &str, scope: &Scope) -> Self {
        Self {
            effect: Effect::ReadFiles,
            target: PermissionTarget::Path {
                path: scope.resolve(file_path),
                write: false,
            },
            input: json!({ "file_path": file_path }),
            ..Self::new("Read")
        }
    }

    /// A `Grep` for `pattern` in `path` (the working directory when `None`).
    pub(crate) fn grep(pattern: &str, path: Option<&str>, scope: &Scope) -> Self {
        let mut input = json!({ "pattern": pattern });
        if let Some(path) = path {
            input["path"] = json!(path);
        }
        Self {
            effect: Effect::ReadFiles,
            target: PermissionTarget::Path {
                path: scope.resolve(path.unwrap_or("")),
                write: false,
            },
            input,
            ..Self::new("Grep")
        }
    }

    /// A `WebFetch` of `url`.
    pub(crate) fn fetch(url: &str) -> Self {
        Self {
            effect: Effect::Network,
            target: PermissionTarget::Url(url.into()),
            input: json!({ "url": url }),
            ..Self::new("WebFetch")
        }
    }

    /// A call of the built-in tool `name` with `input`, its effect and target as the
    /// tool states them: the one place these tests use `tools`, for the gate's answer
    /// on what a real tool names (Glob's walked directory, say).
    pub(crate) fn builtin(name: &'static str, input: Value, scope: &Scope) -> Self {
        let registry = crate::tools::Registry::with_builtins();
        let mut ctx = crate::tools::ToolContext::new("test", scope.cwd.clone(), scope.root.clone());
        ctx.scope = scope.clone();
        let prepared = registry.prepare(name, &input, &ctx).unwrap();
        Self {
            tool: name,
            effect: prepared.spec.effect,
            target: prepared.target,
            input,
        }
    }

    pub(crate) fn call(&self) -> Call<'_> {
        Call {
            tool: self.tool,
            effect: self.effect,
            target: &self.target,
            input: &self.input,
            unsandboxed: false,
        }
    }
}
