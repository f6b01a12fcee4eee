//! File-level helpers of auto memory: slugs and unique file names, input clean-up, and
//! atomic writes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_NAME_CHARS, MemoryError, io_err};

/// Longest file-name slug (without `.md`).
const MAX_SLUG_CHARS: usize = 60;

/// Writes through a temp file in the same directory and a rename, so readers never see
/// a half-written file.
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<(), MemoryError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let file_name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{file_name}.{}.{n}.tmp", std::process::id()));
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

/// `dir/<slug>.md`, with `-2`, `-3`, … appended if that file is taken.
pub(super) fn unique_path(dir: &Path, name: &str) -> Result<PathBuf, MemoryError> {
    let base = slug(name);
    for n in 1..10_000 {
        let stem = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let path = dir.join(format!("{stem}.md"));
        if !path.exists() {
            return Ok(path);
        }
    }
    Err(MemoryError::Invalid(format!(
        "no free file name for \"{name}\""
    )))
}

/// `[a-z0-9-]` only, no leading/trailing/double dash; `memory-note` if nothing is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= MAX_SLUG_CHARS {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    // `MEMORY.md` is the index: never a memory's file (even on case-insensitive disks).
    if out.is_empty() || out == "memory" {
        return "memory-note".to_string();
    }
    out.to_string()
}

pub(super) fn clean_name(name: &str) -> Result<String, MemoryError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(MemoryError::Invalid("the name is empty".into()));
    }
    if name.contains(['\n', '\r']) {
        return Err(MemoryError::Invalid("the name must be one line".into()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(MemoryError::Invalid(format!(
            "the name is longer than {MAX_NAME_CHARS} characters"
        )));
    }
    Ok(name.to_string())
}

/// One line: inner line breaks and runs of whitespace become single spaces.
pub(super) fn clean_description(description: &str) -> Result<String, MemoryError> {
    let line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return Err(MemoryError::Invalid("the description is empty".into()));
    }
    Ok(line)
}

pub(super) fn clean_content(content: &str) -> Result<String, MemoryError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(MemoryError::Invalid("the content is empty".into()));
    }
    Ok(content.to_string())
}
