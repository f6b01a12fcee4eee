//! The `Glob` tool: files whose path matches a glob pattern, newest first.
//!
//! The pattern's leading literal directories become part of the searched directory
//! (`src/**/*.rs` walks `src`, `/abs/dir/*.md` walks `/abs/dir`), so the permission
//! target is the directory actually walked and the walk is no wider than needed.
//! Files that usually hold credentials ([`crate::permission::secrets`]) are left out
//! of the list, with a note.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::output::{BoundedLines, MAX_OUTPUT_CHARS, display_path};
use super::walk::{compile_glob, is_regular_file, names_hidden, walker};
use super::{
    Effect, PermissionTarget, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
    run_blocking,
};
use crate::permission::sandbox::{self, names};
use crate::permission::secrets::{LeftOut, SecretFiles};

/// Most paths listed.
pub const MAX_RESULTS: usize = 100;

const DESCRIPTION: &str = "\
Finds files by name with a glob pattern and returns their paths, most recently modified \
first.

Usage:
- pattern is matched against paths relative to the searched directory. `*` and `?` stay \
within one path component, `**` spans directories, `{a,b}` alternates, `[abc]` is a \
character class. Examples: `**/*.rs` (every Rust file), `src/**/test_*.py`, \
`*.{json,yaml}` (only directly in the directory), `**/Cargo.toml`.
- path is the directory to search, absolute or relative to the working directory; the \
default is the working directory.
- Files ignored by .gitignore, .ignore or .rooignore are skipped, and so are hidden \
files unless the pattern names a hidden component (e.g. `.github/**/*.yml`).
- Files that usually hold credentials (.env, *.pem, id_rsa, …) are left out, with a \
note naming them; Read one to see it (the user is asked first).
- Paths under the working directory are shown relative to it. At most 100 paths are \
listed; a note tells how many more matched, so narrow the pattern or path then.
- Use Glob to find files by name; use Grep to find files by content. You can run \
several searches at once by calling tools in parallel in one response.";

/// The built-in `Glob` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    /// The glob to match file paths against, e.g. "**/*.rs" or "src/**/test_*.py"
    pub pattern: String,
    /// The directory to search in (default: the working directory)
    pub path: Option<String>,
}

/// Where to walk and what to match there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    /// The directory to walk, resolved against the working directory (not canonical).
    dir: PathBuf,
    /// The rest of the pattern, relative to `dir`.
    pattern: String,
}

/// Move the pattern's leading literal components (never the last one) into the
/// directory: `src/**/*.rs` in `.` → walk `./src` for `**/*.rs`.
fn plan(pattern: &str, path: Option<&str>, ctx: &ToolContext) -> Plan {
    let mut dir = ctx.resolve(path.unwrap_or(""));
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut used = 0;
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() || part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            break;
        }
        match *part {
            "" if i == 0 => dir = PathBuf::from("/"),
            "" | "." => {}
            literal => dir.push(literal),
        }
        used = i + 1;
    }
    Plan {
        dir,
        pattern: parts[used..].join("/"),
    }
}

impl TypedTool for GlobTool {
    type Args = GlobArgs;

    fn spec(&self) -> Spec {
        Spec::new("Glob", DESCRIPTION, Effect::ReadFiles, ToolCategory::File)
    }

    fn is_concurrency_safe(&self, _args: &GlobArgs) -> bool {
        true
    }

    fn target(&self, args: &GlobArgs, ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::Path {
            path: plan(&args.pattern, args.path.as_deref(), ctx).dir,
            write: false,
        }
    }

    fn run<'a>(
        &'a self,
        input: GlobArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let plan = plan(&input.pattern, input.path.as_deref(), ctx);
            let checked = sandbox::check_beneath(&plan.dir, sandbox::Access::Read, &ctx.scope)
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            let cwd = sandbox::real_path(&ctx.scope.cwd).unwrap_or_else(|_| ctx.scope.cwd.clone());
            let shown = plan.dir.display().to_string();
            let search = Search {
                dir: checked.real().to_path_buf(),
                checked,
                shown,
                cwd,
                pattern: plan.pattern,
            };
            let project = ctx.scope.root.clone();
            run_blocking(ctx, move |cancel| search.run(&cancel, &project))
                .await
                .map(ToolOutput::text)
        }
        .boxed()
    }
}

struct Search {
    /// Real path of the directory to walk.
    dir: PathBuf,
    /// The same as the sandbox let it through: each match is confirmed from there.
    checked: sandbox::Checked,
    /// That directory as the model named it, for messages.
    shown: String,
    /// Real working directory, for relative display.
    cwd: PathBuf,
    pattern: String,
}

impl Search {
    /// `project` is the project root, where other names of hard links are looked for.
    fn run(&self, cancel: &CancellationToken, project: &Path) -> Result<String, ToolError> {
        match std::fs::metadata(&self.dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(ToolError::InvalidInput(format!(
                    "{} is not a directory; path must name the directory to search in.",
                    self.shown
                )));
            }
            Err(_) => {
                return Err(ToolError::Failed(format!(
                    "Directory does not exist: {}",
                    self.shown
                )));
            }
        }
        let matcher = compile_glob(&self.pattern)?;
        let beneath = self
            .checked
            .open_base()
            .map_err(|e| ToolError::Failed(format!("Cannot search {}: {e}", self.shown)))?;
        let walk = walker(&self.dir, &self.cwd, names_hidden(&self.pattern)).build();
        let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
        let secret_files = SecretFiles::for_daemon_user().with_project(project);
        let mut left_out = LeftOut::default();
        for entry in walk {
            if cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let Ok(entry) = entry else { continue };
            if !is_regular_file(&entry) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&self.dir) else {
                continue;
            };
            // Confirmed from the checked directory: a name reached through a directory
            // swapped for a link meanwhile is not listed.
            if matcher.is_match(rel) && beneath.contains(&self.checked.rel_of(rel)) {
                let meta = entry.metadata().ok();
                if secret_files
                    .classify(entry.path(), entry.path(), meta.as_ref())
                    .is_some()
                {
                    left_out.add(names::escape(&display_path(entry.path(), &self.cwd)));
                    continue;
                }
                let mtime = meta
                    .and_then(|m| m.modified().ok())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((mtime, entry.into_path()));
            }
        }
        let mut text = self.list(found);
        if let Some(note) = left_out.note() {
            text.push('\n');
            text.push_str(&note);
        }
        Ok(text)
    }

    /// The found paths, newest first, bounded.
    fn list(&self, mut found: Vec<(SystemTime, PathBuf)>) -> String {
        if found.is_empty() {
            return "No files found".to_string();
        }
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let total = found.len();
        let mut out = BoundedLines::new(MAX_OUTPUT_CHARS - 200);
        for (_, path) in found.iter().take(MAX_RESULTS) {
            if !out.push(&names::escape(&display_path(path, &self.cwd))) {
                break;
            }
        }
        let shown = out.len();
        let mut text = out.into_string();
        if shown < total {
            text.push_str(&format!(
                "\n(Showing the {shown} most recently modified of {total} matching files; \
                 {} more not shown. Use a narrower pattern or path.)",
                total - shown
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests;
