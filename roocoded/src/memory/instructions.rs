//! Instruction files (DESIGN §6): `ROOCODE.md` at the project root, `.roocode/ROOCODE.md`
//! and the user's `~/.roocode/ROOCODE.md`, concatenated project first with `---`
//! separators. A project without any `ROOCODE.md` falls back to `AGENTS.md`, else
//! `CLAUDE.md`, so instructions written for other agents carry over.
//!
//! A line that is exactly `@include <path>` (after trimming) is replaced by that file's
//! content, resolved relative to the including file's directory (`~/` is the home
//! directory), recursively up to [`MAX_INCLUDE_DEPTH`] levels. A cycle, a missing file or
//! the depth limit never fails the load: the line becomes a visible
//! `<!-- @include path: not included: reason -->` comment. Each file is capped at
//! [`MAX_FILE_BYTES`], with a note saying so when cut.

use std::path::{Path, PathBuf};

/// Most bytes read from one instruction file (top-level or included).
pub const MAX_FILE_BYTES: usize = 64 * 1024;
/// Deepest chain of nested `@include`s followed.
pub const MAX_INCLUDE_DEPTH: usize = 5;
/// Between the instruction files, in order.
pub const SEPARATOR: &str = "\n\n---\n\n";

/// A top-level instruction file exists but cannot be read (includes never fail).
#[derive(Debug, thiserror::Error)]
pub enum InstructionsError {
    #[error("cannot read instruction file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The instructions for a session in `root`, with the user's from `user_dir` (usually
/// `~/.roocode`): project files first, then the user's. `None` when there are none (or
/// all are blank).
pub fn load_instructions(
    root: &Path,
    user_dir: &Path,
) -> Result<Option<String>, InstructionsError> {
    let root_file = root.join("ROOCODE.md");
    let local_file = root.join(".roocode").join("ROOCODE.md");
    let mut files = Vec::new();
    if root_file.is_file() || local_file.is_file() {
        files.push(root_file);
        files.push(local_file);
    } else {
        let agents = root.join("AGENTS.md");
        files.push(if agents.is_file() {
            agents
        } else {
            root.join("CLAUDE.md")
        });
    }
    files.push(user_dir.join("ROOCODE.md"));

    let mut parts = Vec::new();
    for file in files {
        let text = match read_capped(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(InstructionsError::Read { path: file, source }),
        };
        let mut stack = vec![file.canonicalize().unwrap_or_else(|_| file.clone())];
        let expanded = expand(&text, &file, 0, &mut stack);
        let trimmed = expanded.trim();
        if !trimmed.is_empty() {
            parts.push(trimmed.to_string());
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join(SEPARATOR)))
}

/// The instructions as a `<system-reminder>` block for the model's context.
pub fn system_reminder(text: &str) -> String {
    format!(
        "<system-reminder>\n\
         # Project and user instructions\n\
         The following are the user's instructions for this project (from ROOCODE.md \
         instruction files, project first, then the user's own). They take precedence \
         over your default behaviour: follow them exactly as written.\n\n\
         {}\n\
         </system-reminder>",
        text.trim()
    )
}

/// Reads a file, keeping at most [`MAX_FILE_BYTES`] (cut on a character boundary, with a
/// note). Invalid UTF-8 is replaced rather than refused.
fn read_capped(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    if bytes.len() <= MAX_FILE_BYTES {
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let mut text = String::from_utf8_lossy(&bytes[..MAX_FILE_BYTES]).into_owned();
    // A multi-byte character cut in half decodes as one trailing U+FFFD: drop it.
    if text.ends_with('\u{FFFD}') {
        text.pop();
    }
    text.push_str(&format!(
        "\n<!-- {}: truncated: only the first {} KB of {} bytes are included -->",
        path.display(),
        MAX_FILE_BYTES / 1024,
        bytes.len()
    ));
    Ok(text)
}

/// `text` (the content of `file`, at include depth `depth`) with its `@include` lines
/// replaced. `stack` holds the canonical paths of the files being expanded (cycles).
fn expand(text: &str, file: &Path, depth: usize, stack: &mut Vec<PathBuf>) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let Some(target) = include_target(line) else {
            out.push_str(line);
            continue;
        };
        let included = include(target, file, depth, stack);
        out.push_str(included.trim_end_matches('\n'));
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The path of an `@include <path>` line.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("@include")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let target = rest.trim();
    (!target.is_empty()).then_some(target)
}

/// The expanded content of `target`, included from `file`, or the comment saying why not.
fn include(target: &str, file: &Path, depth: usize, stack: &mut Vec<PathBuf>) -> String {
    let skipped = |reason: &str| format!("<!-- @include {target}: not included: {reason} -->");
    if depth >= MAX_INCLUDE_DEPTH {
        return skipped(&format!(
            "include depth limit ({MAX_INCLUDE_DEPTH}) reached"
        ));
    }
    let Some(path) = resolve(target, file) else {
        return skipped("no home directory to resolve ~/");
    };
    let canonical = match path.canonicalize() {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return skipped(&format!("file not found ({})", path.display()));
        }
        Err(e) => return skipped(&e.to_string()),
    };
    if stack.contains(&canonical) {
        return skipped("include cycle");
    }
    if !canonical.is_file() {
        return skipped("not a file");
    }
    let text = match read_capped(&canonical) {
        Ok(text) => text,
        Err(e) => return skipped(&e.to_string()),
    };
    stack.push(canonical);
    let expanded = expand(&text, &path, depth + 1, stack);
    stack.pop();
    expanded
}

/// `target` resolved against the directory of `file` (`~/` is the home directory).
fn resolve(target: &str, file: &Path) -> Option<PathBuf> {
    if let Some(rest) = target.strip_prefix("~/") {
        let home = directories::BaseDirs::new()?.home_dir().to_path_buf();
        return Some(home.join(rest));
    }
    let dir = file.parent().unwrap_or_else(|| Path::new(""));
    Some(dir.join(target))
}

#[cfg(test)]
mod tests;
