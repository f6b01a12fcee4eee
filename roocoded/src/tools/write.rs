//! The `Write` tool: create a file or replace an existing one whole. Also the helpers
//! `Write` and `Edit` share: path resolution through the sandbox, the read-before-write
//! rule against [`super::FileState`], the checkpoint before the change and the unified
//! diff for clients.

use std::fs;
use std::io::{self, Read as _, Seek as _, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::checkpoint::{CheckpointError, Checkpoints, Prior};
use super::output::display_path;
use super::redact::check_markers;
use super::{
    Effect, FileStamp, FileState, PermissionTarget, ReadStatus, Spec, ToolCategory, ToolContext,
    ToolError, ToolOutput, TypedTool, run_blocking,
};
use crate::permission::sandbox::{self, Access};

/// Lines of context around each change in the diff.
const DIFF_CONTEXT: usize = 3;

const DESCRIPTION: &str = "\
Writes a file: creates it, or replaces the whole content of an existing one.

Usage:
- file_path is absolute or relative to the working directory; it must lie inside the \
project (or a configured additional directory). Missing parent directories are created.
- content is the complete new content of the file, exactly as it should be on disk. \
Never include Read's line-number prefixes.
- Overwriting an existing file requires that you have read it with Read first in this \
conversation; if it changed on disk since you read it, the call fails and you must Read \
it again. A new file needs no read.
- To change part of an existing file, prefer Edit: it sends only the changed text and \
cannot lose the rest of the file by accident. Use Write for new files or complete \
rewrites.
- Never create documentation files (README, *.md) or other files the user did not ask \
for; prefer editing existing files to creating new ones.
- Every write is checkpointed so the user can rewind it.";

/// The built-in `Write` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The file to write: absolute, or relative to the working directory
    pub file_path: String,
    /// The complete content to write to the file
    pub content: String,
}

impl TypedTool for WriteTool {
    type Args = WriteArgs;

    fn spec(&self) -> Spec {
        Spec::new("Write", DESCRIPTION, Effect::WriteFiles, ToolCategory::File)
    }

    fn target(&self, args: &WriteArgs, ctx: &ToolContext) -> PermissionTarget {
        write_target(&args.file_path, ctx)
    }

    fn run<'a>(
        &'a self,
        input: WriteArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            if let Some(c) = sandbox::names::misleading_char(&input.file_path) {
                return Err(ToolError::InvalidInput(format!(
                    "file_path contains the character {c}, which would make the file's name \
                     display misleadingly in listings and terminals; RooCode does not create \
                     such names. Choose a name without control or direction characters."
                )));
            }
            let target = Target::resolve(ctx, &input.file_path)?;
            let files = ctx.files.clone();
            let checkpoints = Checkpoints::of(ctx).map_err(checkpoint_failed)?;
            run_blocking(ctx, move |_cancel| {
                write_file(&target, &input.content, &files, &checkpoints)
            })
            .await
        }
        .boxed()
    }
}

fn write_file(
    target: &Target,
    content: &str,
    files: &FileState,
    checkpoints: &Checkpoints,
) -> Result<ToolOutput, ToolError> {
    let shown = &target.shown;
    let existing = target.open_existing()?;
    let old = existing
        .as_ref()
        .map(|(_, _, bytes)| String::from_utf8_lossy(bytes).into_owned());
    // A redaction marker stands for a secret the model never saw (tools/redact.rs).
    check_markers(content, old.as_deref()).map_err(ToolError::InvalidInput)?;
    let mut file = match existing {
        Some((file, meta, bytes)) => {
            require_fresh_read(files, &target.real, shown, "overwrite")?;
            target.save_checkpoint(checkpoints, Some((&meta, bytes)))?;
            file
        }
        None => {
            target.save_checkpoint(checkpoints, None)?;
            target
                .checked
                .create_file()
                .map_err(target.io_failed("create"))?
        }
    };
    target.replace_content(&mut file, content.as_bytes())?;
    target.record(files, &file)?;
    let lines = match content.lines().count() {
        1 => "1 line".to_string(),
        n => format!("{n} lines"),
    };
    let diff = unified_diff(old.as_deref().unwrap_or(""), content, &target.label);
    let message = match old {
        None => format!("File created: {shown} ({lines})"),
        Some(_) => format!("File written: {shown} ({lines})"),
    };
    Ok(ToolOutput::text(message).with_diff(diff))
}

/// A file a writing tool is about to change.
#[derive(Debug, Clone)]
pub(super) struct Target {
    /// Real path (symlinks resolved) as checked by the sandbox.
    pub real: PathBuf,
    /// The same, with the directory it was judged inside: the file is opened from there.
    pub checked: sandbox::Checked,
    /// How the model is shown the path: relative to the working directory when under it.
    pub shown: String,
    /// The path in diff headers: relative to the project root when under it.
    pub label: String,
}

impl Target {
    /// Resolve `file_path` against the working directory and check it against the
    /// sandbox for writing.
    pub(super) fn resolve(ctx: &ToolContext, file_path: &str) -> Result<Self, ToolError> {
        let given = ctx.resolve(file_path);
        let checked = sandbox::check_beneath(&given, Access::Write, &ctx.scope)
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let real = checked.real().to_path_buf();
        let root = sandbox::real_path(&ctx.scope.root).unwrap_or_else(|_| ctx.scope.root.clone());
        let label = display_path(&real, &root);
        Ok(Self {
            shown: display_path(&given, &ctx.scope.cwd),
            label: label.trim_start_matches('/').to_string(),
            real,
            checked,
        })
    }

    /// Open the existing file through the sandbox's directory for reading and writing:
    /// the file, its metadata and its current bytes; `None` if it does not exist.
    /// Directories and special files are refused.
    pub(super) fn open_existing(
        &self,
    ) -> Result<Option<(fs::File, fs::Metadata, Vec<u8>)>, ToolError> {
        let mut file = match self.checked.open_existing() {
            Ok(Some(file)) => file,
            Ok(None) => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::IsADirectory => {
                return Err(ToolError::InvalidInput(format!(
                    "{} is a directory; give the path of a file.",
                    self.shown
                )));
            }
            Err(e) => return Err(self.io_failed("open")(e)),
        };
        let meta = file.metadata().map_err(self.io_failed("inspect"))?;
        self.check_regular_file(&meta)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(self.io_failed("read"))?;
        Ok(Some((file, meta, bytes)))
    }

    /// Save the file's state before the change (`None`: it does not exist yet).
    pub(super) fn save_checkpoint(
        &self,
        checkpoints: &Checkpoints,
        prior: Option<(&fs::Metadata, Vec<u8>)>,
    ) -> Result<(), ToolError> {
        let prior = prior.map(|(meta, bytes)| Prior {
            bytes,
            mode: meta.permissions().mode(),
        });
        checkpoints
            .save_prior(&self.real, prior.as_ref())
            .map(|_| ())
            .map_err(checkpoint_failed)
    }

    /// Replace the whole content of the opened file in place (same file, same mode and
    /// links, as `fs::write` did by name).
    pub(super) fn replace_content(
        &self,
        file: &mut fs::File,
        content: &[u8],
    ) -> Result<(), ToolError> {
        file.set_len(0)
            .and_then(|()| file.seek(io::SeekFrom::Start(0)).map(|_| ()))
            .and_then(|()| file.write_all(content))
            .and_then(|()| file.flush())
            .map_err(self.io_failed("write"))
    }

    /// Refuse directories and special files.
    pub(super) fn check_regular_file(&self, meta: &fs::Metadata) -> Result<(), ToolError> {
        if meta.is_dir() {
            return Err(ToolError::InvalidInput(format!(
                "{} is a directory; give the path of a file.",
                self.shown
            )));
        }
        if !meta.is_file() {
            return Err(ToolError::InvalidInput(format!(
                "{} is not a regular file (a device, socket or pipe); only files can be written.",
                self.shown
            )));
        }
        Ok(())
    }

    /// An I/O failure while doing `what` to this file, for the model.
    pub(super) fn io_failed(&self, what: &'static str) -> impl FnOnce(io::Error) -> ToolError {
        let shown = self.shown.clone();
        move |e| ToolError::Failed(format!("Cannot {what} {shown}: {e}"))
    }

    /// Record the file as this agent now knows it, so a following Edit or Write is
    /// allowed without another Read.
    pub(super) fn record(&self, files: &FileState, file: &fs::File) -> Result<(), ToolError> {
        let meta = file.metadata().map_err(self.io_failed("inspect"))?;
        files.record(self.real.clone(), FileStamp::of(&meta));
        Ok(())
    }
}

/// The read-before-write rule: an existing file may be changed only if this agent read
/// it and it has not changed on disk since. `action` completes "before you … it".
pub(super) fn require_fresh_read(
    files: &FileState,
    real: &Path,
    shown: &str,
    action: &str,
) -> Result<(), ToolError> {
    match files.status(real) {
        ReadStatus::Unchanged => Ok(()),
        ReadStatus::NotRead => Err(ToolError::InvalidInput(format!(
            "{shown} has not been read yet. Read it with the Read tool first, then {action} it."
        ))),
        ReadStatus::Changed => Err(ToolError::InvalidInput(format!(
            "{shown} has changed on disk since you last read it (the user, a command or \
             another agent modified it). Read it again, then {action} it based on its \
             current content."
        ))),
    }
}

/// The unified diff of a change, with `a/<label>` and `b/<label>` headers.
pub(crate) fn unified_diff(old: &str, new: &str, label: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&format!("a/{label}"), &format!("b/{label}"))
        .to_string()
}

/// A checkpoint that could not be saved stops the change.
pub(super) fn checkpoint_failed(e: CheckpointError) -> ToolError {
    ToolError::Failed(format!(
        "Cannot save a checkpoint before changing the file, so it was left unchanged: {e}"
    ))
}

/// The permission target of Write and Edit: the `file_path` resolved against the
/// working directory, for writing.
pub(super) fn write_target(file_path: &str, ctx: &ToolContext) -> PermissionTarget {
    PermissionTarget::Path {
        path: ctx.resolve(file_path),
        write: true,
    }
}

/// Tests, and helpers the other writing tools' tests share.
#[cfg(test)]
pub(super) mod tests;
