//! The `Read` tool: a text file's lines, numbered like `cat -n`, with offset/limit
//! paging. Records each successful read in the agent's [`super::FileState`].

use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::output::{BoundedLines, MAX_OUTPUT_CHARS, truncate_line};
use super::{
    Effect, FileStamp, PermissionTarget, Spec, ToolCategory, ToolContext, ToolError, ToolOutput,
    TypedTool, run_blocking,
};
use crate::permission::sandbox::{self, Purpose};

/// Lines returned when no limit is given.
pub const DEFAULT_LIMIT: u64 = 2000;
/// Longest line shown in full.
pub const MAX_LINE_CHARS: usize = 2000;
/// How much of the file is sniffed for NUL bytes.
const SNIFF_BYTES: u64 = 8192;
/// Room kept under [`MAX_OUTPUT_CHARS`] for the closing note.
const NOTE_ROOM: usize = 200;
/// Extensions refused as binary even when the sniffed prefix has no NUL byte.
const BINARY_EXTENSIONS: &[&str] = &[
    "7z", "a", "avi", "bin", "bmp", "bz2", "class", "db", "dll", "dylib", "exe", "flac", "gif",
    "gz", "ico", "jar", "jpeg", "jpg", "mov", "mp3", "mp4", "o", "ogg", "otf", "pdf", "png", "pyc",
    "rar", "so", "sqlite", "tar", "tgz", "ttf", "wasm", "wav", "webp", "woff", "woff2", "xz",
    "zip", "zst",
];

const DESCRIPTION: &str = "\
Reads a text file and returns its lines numbered like `cat -n`: the line number, a tab, \
then the line as it is in the file.

Usage:
- file_path is absolute or relative to the working directory. Files inside the project \
(and the configured additional directories) can be read; paths outside are refused.
- By default up to 2000 lines are returned, starting at line 1. For a long file, pass \
offset (1-based line number to start at) and limit (number of lines) to read a part. \
When the output is cut, a note at the end says which offset to use next.
- Lines longer than 2000 characters are truncated; the whole output is capped at about \
30000 characters.
- Only text files: binary files (images, archives, executables) are refused. A directory \
cannot be read; use Glob to list its files.
- The line-number prefix is not part of the file: never include it when you quote file \
content, for example in an edit.
- Read a file before you edit or overwrite it.
- You can read several files at once by calling Read several times in one response.";

/// The built-in `Read` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file to read: absolute, or relative to the working directory
    pub file_path: String,
    /// The 1-based line number to start reading at (default 1)
    #[schemars(range(min = 1))]
    pub offset: Option<u64>,
    /// The number of lines to read (default 2000)
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
}

impl TypedTool for ReadTool {
    type Args = ReadArgs;

    fn spec(&self) -> Spec {
        Spec::new("Read", DESCRIPTION, Effect::ReadFiles, ToolCategory::File)
    }

    fn is_concurrency_safe(&self, _args: &ReadArgs) -> bool {
        true
    }

    fn target(&self, args: &ReadArgs, ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::Path {
            path: ctx.resolve(&args.file_path),
            write: false,
        }
    }

    fn run<'a>(
        &'a self,
        input: ReadArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let given = ctx.resolve(&input.file_path);
            let checked = sandbox::check_beneath(&given, sandbox::Access::Read, &ctx.scope)
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            let real = checked.real().to_path_buf();
            let request = Request {
                shown: given,
                checked,
                offset: input.offset.unwrap_or(1).max(1),
                limit: input.limit.unwrap_or(DEFAULT_LIMIT).max(1),
            };
            let (text, stamp) = run_blocking(ctx, move |cancel| request.run(&cancel)).await?;
            ctx.files.record(real, stamp);
            Ok(ToolOutput::text(text))
        }
        .boxed()
    }
}

struct Request {
    /// The path as the model gave it, resolved against the working directory.
    shown: PathBuf,
    /// The path as the sandbox let it through; the file is opened from its directory.
    checked: sandbox::Checked,
    offset: u64,
    limit: u64,
}

impl Request {
    fn run(&self, cancel: &CancellationToken) -> Result<(String, FileStamp), ToolError> {
        let shown = self.shown.display();
        let mut file = match self.checked.open_file(Purpose::Read) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ToolError::Failed(format!("File does not exist: {shown}")));
            }
            Err(e) => return Err(ToolError::Failed(format!("Cannot read {shown}: {e}"))),
        };
        let meta = file
            .metadata()
            .map_err(|e| ToolError::Failed(format!("Cannot read {shown}: {e}")))?;
        if meta.is_dir() {
            return Err(ToolError::InvalidInput(format!(
                "{shown} is a directory, not a file. Use Glob to list the files in it."
            )));
        }
        if !meta.is_file() {
            return Err(ToolError::InvalidInput(format!(
                "{shown} is not a regular file (a device, socket or pipe); Read only reads files."
            )));
        }
        let stamp = FileStamp::of(&meta);
        let io_err = |e: std::io::Error| ToolError::Failed(format!("Cannot read {shown}: {e}"));
        if is_binary(self.checked.real(), &mut file).map_err(io_err)? {
            return Err(ToolError::InvalidInput(format!(
                "Cannot read {shown}: it is a binary file ({} bytes). Read only shows text files.",
                meta.len()
            )));
        }
        let text = self
            .number_lines(BufReader::new(file), cancel)
            .map_err(|e| match e {
                LineError::Io(e) => io_err(e),
                LineError::Cancelled => ToolError::Cancelled,
            })?;
        Ok((text, stamp))
    }

    fn number_lines(
        &self,
        mut reader: impl BufRead,
        cancel: &CancellationToken,
    ) -> Result<String, LineError> {
        let shown = self.shown.display();
        let last_wanted = self.offset.saturating_add(self.limit - 1);
        let mut out = BoundedLines::new(MAX_OUTPUT_CHARS - NOTE_ROOM);
        let mut buf = Vec::new();
        let mut total: u64 = 0;
        // Last line shown, and whether the character budget stopped us before the limit.
        let mut last_shown: Option<u64> = None;
        let mut capped = false;
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf)? == 0 {
                break;
            }
            total += 1;
            if total.is_multiple_of(4096) && cancel.is_cancelled() {
                return Err(LineError::Cancelled);
            }
            if total < self.offset || total > last_wanted || capped {
                continue;
            }
            let line = String::from_utf8_lossy(trim_newline(&buf));
            if out.push(&format!(
                "{total:>6}\t{}",
                truncate_line(&line, MAX_LINE_CHARS)
            )) {
                last_shown = Some(total);
            } else {
                capped = true;
            }
        }
        if total == 0 {
            return Ok(format!("(The file {shown} exists but is empty.)"));
        }
        let Some(last) = last_shown else {
            return Ok(format!(
                "(The file {shown} has {total} lines; offset {} is past the end.)",
                self.offset
            ));
        };
        let mut text = out.into_string();
        if last < total {
            let why = if capped {
                format!(" (output capped at {MAX_OUTPUT_CHARS} characters)")
            } else {
                String::new()
            };
            text.push_str(&format!(
                "\n\n(Showing lines {}-{last} of {total}{why}. Use offset={} to read more.)",
                self.offset,
                last + 1
            ));
        }
        Ok(text)
    }
}

enum LineError {
    Io(std::io::Error),
    Cancelled,
}

impl From<std::io::Error> for LineError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Binary if the extension says so or the first bytes contain a NUL byte. Leaves the
/// file positioned at the start.
fn is_binary(path: &Path, file: &mut File) -> std::io::Result<bool> {
    let by_extension = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| BINARY_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
    if by_extension {
        return Ok(true);
    }
    let mut head = Vec::new();
    file.by_ref().take(SNIFF_BYTES).read_to_end(&mut head)?;
    std::io::Seek::rewind(file)?;
    Ok(head.contains(&0))
}

#[cfg(test)]
mod tests;
