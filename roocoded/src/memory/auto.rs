//! Auto memory (DESIGN §6): facts the agent saves for later sessions with the `Memory`
//! tool. Each memory is a Markdown file with YAML frontmatter (`name`, `description`,
//! `type`); `user` and `feedback` memories live in the user's directory
//! (`~/.roocode/memory/`), `project` and `reference` ones in `<root>/.roocode/memory/`.
//! Names are unique across both directories (compared case-insensitively); the file
//! name is a slug of the name.
//!
//! Each directory has an index, `MEMORY.md`, one line per memory
//! (`- [name](file.md) — description`), rebuilt from the files after every change.
//! [`index_for_prompt`] joins both indexes for injection at session start; the full
//! memories are read on demand. Every file is written atomically (temp file + rename).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use files::slug;
use files::{clean_content, clean_description, clean_name, unique_path, write_atomic};

/// The index file of a memory directory.
pub const INDEX_FILE: &str = "MEMORY.md";
/// Longest memory name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Most index lines injected per directory.
pub const MAX_INDEX_LINES: usize = 200;

/// Where memories are kept: `user` is `~/.roocode/memory`, `project` is
/// `<root>/.roocode/memory`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryDirs {
    pub user: PathBuf,
    pub project: PathBuf,
}

impl MemoryDirs {
    /// The directories for a project at `root`, with the user's RooCode directory
    /// `user_dir` (usually `~/.roocode`).
    pub fn new(user_dir: &Path, root: &Path) -> Self {
        Self {
            user: user_dir.join("memory"),
            project: root.join(".roocode").join("memory"),
        }
    }

    /// The directory a memory of type `ty` belongs in.
    pub fn dir_for(&self, ty: MemoryType) -> &Path {
        if ty.is_user_scope() {
            &self.user
        } else {
            &self.project
        }
    }
}

/// Kind of memory; decides its directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    /// About the user: preferences, role, habits (user directory).
    User,
    /// Corrections of the agent's behaviour (user directory).
    Feedback,
    /// Durable facts about this project not derivable from its code (project directory).
    Project,
    /// Pointers to external resources: URLs, docs, dashboards (project directory).
    Reference,
}

impl MemoryType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Feedback => "feedback",
            Self::Project => "project",
            Self::Reference => "reference",
        }
    }

    /// True for the types kept in the user's directory (shared by all projects).
    pub fn is_user_scope(self) -> bool {
        matches!(self, Self::User | Self::Feedback)
    }
}

/// One saved memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryEntry {
    pub name: String,
    pub description: String,
    pub memory_type: MemoryType,
    /// The memory's body (after the frontmatter).
    pub content: String,
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("a memory named \"{name}\" already exists ({}); use action \"update\" to change it", path.display())]
    Exists { name: String, path: PathBuf },
    #[error("no memory named \"{0}\"")]
    NotFound(String),
    #[error("invalid memory: {0}")]
    Invalid(String),
    #[error("memory file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Frontmatter {
    name: String,
    description: String,
    #[serde(rename = "type")]
    memory_type: MemoryType,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> MemoryError + '_ {
    move |source| MemoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Saves a new memory; fails if the name is taken (in either directory).
pub fn save(
    dirs: &MemoryDirs,
    name: &str,
    ty: MemoryType,
    description: &str,
    content: &str,
) -> Result<PathBuf, MemoryError> {
    let name = clean_name(name)?;
    let description = clean_description(description)?;
    let content = clean_content(content)?;
    if let Some(existing) = find(dirs, &name)? {
        return Err(MemoryError::Exists {
            name: existing.name,
            path: existing.path,
        });
    }
    let dir = dirs.dir_for(ty);
    let path = unique_path(dir, &name)?;
    write_memory(&path, &name, ty, &description, &content)?;
    write_index(dir)?;
    Ok(path)
}

/// Changes an existing memory; at least one of the optional fields must be given. A new
/// type in the other scope moves the file to the other directory. Returns the memory as
/// it is now.
pub fn update(
    dirs: &MemoryDirs,
    name: &str,
    description: Option<&str>,
    content: Option<&str>,
    ty: Option<MemoryType>,
) -> Result<MemoryEntry, MemoryError> {
    if description.is_none() && content.is_none() && ty.is_none() {
        return Err(MemoryError::Invalid(
            "nothing to update: give a new description, content or type".into(),
        ));
    }
    let name = clean_name(name)?;
    let old = find(dirs, &name)?.ok_or_else(|| MemoryError::NotFound(name.clone()))?;
    let new_type = ty.unwrap_or(old.memory_type);
    let description = match description {
        Some(d) => clean_description(d)?,
        None => old.description.clone(),
    };
    let content = match content {
        Some(c) => clean_content(c)?,
        None => old.content.clone(),
    };
    let old_dir = dirs.dir_for(old.memory_type);
    let new_dir = dirs.dir_for(new_type);
    let path = if old_dir == new_dir {
        old.path.clone()
    } else {
        unique_path(new_dir, &old.name)?
    };
    write_memory(&path, &old.name, new_type, &description, &content)?;
    if path != old.path {
        std::fs::remove_file(&old.path).map_err(io_err(&old.path))?;
        write_index(old_dir)?;
    }
    write_index(new_dir)?;
    Ok(MemoryEntry {
        name: old.name,
        description,
        memory_type: new_type,
        content,
        path,
    })
}

/// Deletes a memory; returns what it was.
pub fn delete(dirs: &MemoryDirs, name: &str) -> Result<MemoryEntry, MemoryError> {
    let name = clean_name(name)?;
    let old = find(dirs, &name)?.ok_or_else(|| MemoryError::NotFound(name.clone()))?;
    std::fs::remove_file(&old.path).map_err(io_err(&old.path))?;
    write_index(dirs.dir_for(old.memory_type))?;
    Ok(old)
}

/// Every memory, user directory first, each directory sorted by name. Files that are not
/// valid memories are skipped (with a warning in the log).
pub fn list(dirs: &MemoryDirs) -> Result<Vec<MemoryEntry>, MemoryError> {
    let mut all = list_dir(&dirs.user)?;
    all.extend(list_dir(&dirs.project)?);
    Ok(all)
}

/// Both indexes, for the model's context at session start; `None` when there are no
/// memories. Built from the files (so a stale or hand-edited index does not mislead).
pub fn index_for_prompt(dirs: &MemoryDirs) -> Option<String> {
    let mut sections = Vec::new();
    for (label, dir) in [("User", &dirs.user), ("Project", &dirs.project)] {
        let entries = match list_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(error = %e, "memory directory not readable");
                continue;
            }
        };
        if entries.is_empty() {
            continue;
        }
        let mut lines: Vec<String> = entries
            .iter()
            .take(MAX_INDEX_LINES)
            .map(index_line)
            .collect();
        if entries.len() > MAX_INDEX_LINES {
            lines.push(format!(
                "- … and {} more (see {})",
                entries.len() - MAX_INDEX_LINES,
                dir.join(INDEX_FILE).display()
            ));
        }
        sections.push(format!(
            "## {label} memories (files in {})\n{}",
            dir.display(),
            lines.join("\n")
        ));
    }
    if sections.is_empty() {
        return None;
    }
    Some(format!(
        "# Auto memory\n\
         Memories saved in earlier sessions with the Memory tool. Each line is \
         `[name](file) — description`; read a file (Read tool) when its memory is \
         relevant to the task. Update or delete memories that turn out wrong.\n\n{}",
        sections.join("\n\n")
    ))
}

/// The memory named `name` (case-insensitive), in either directory.
fn find(dirs: &MemoryDirs, name: &str) -> Result<Option<MemoryEntry>, MemoryError> {
    Ok(list(dirs)?
        .into_iter()
        .find(|e| e.name.to_lowercase() == name.to_lowercase()))
}

fn list_dir(dir: &Path) -> Result<Vec<MemoryEntry>, MemoryError> {
    let reader = match std::fs::read_dir(dir) {
        Ok(reader) => reader,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut entries = Vec::new();
    for item in reader {
        let path = item.map_err(io_err(dir))?.path();
        let is_memory = path.extension().is_some_and(|e| e == "md")
            && path.file_name().is_some_and(|n| n != INDEX_FILE)
            && path.is_file();
        if !is_memory {
            continue;
        }
        match read_memory(&path) {
            Ok(entry) => entries.push(entry),
            Err(e) => tracing::warn!(error = %e, "skipping invalid memory file"),
        }
    }
    entries.sort_by_key(|e| (e.name.to_lowercase(), e.path.clone()));
    Ok(entries)
}

fn read_memory(path: &Path) -> Result<MemoryEntry, MemoryError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    let invalid = |why: &str| MemoryError::Invalid(format!("{}: {why}", path.display()));
    let rest = text
        .strip_prefix("---\n")
        .ok_or_else(|| invalid("no frontmatter"))?;
    let (yaml, body) = match rest.find("\n---") {
        Some(i) => (&rest[..i], &rest[i + 4..]),
        None => return Err(invalid("unterminated frontmatter")),
    };
    let front: Frontmatter =
        yaml_serde::from_str(yaml).map_err(|e| invalid(&format!("frontmatter: {e}")))?;
    Ok(MemoryEntry {
        name: front.name,
        description: front.description,
        memory_type: front.memory_type,
        content: body.trim_start_matches(['\r', '\n']).trim_end().to_string(),
        path: path.to_path_buf(),
    })
}

fn write_memory(
    path: &Path,
    name: &str,
    ty: MemoryType,
    description: &str,
    content: &str,
) -> Result<(), MemoryError> {
    let front = Frontmatter {
        name: name.to_string(),
        description: description.to_string(),
        memory_type: ty,
    };
    let yaml = yaml_serde::to_string(&front)
        .map_err(|e| MemoryError::Invalid(format!("cannot write frontmatter: {e}")))?;
    let text = format!("---\n{}\n---\n\n{content}\n", yaml.trim_end());
    write_atomic(path, &text)
}

fn index_line(entry: &MemoryEntry) -> String {
    let file = entry
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("- [{}]({file}) — {}", entry.name, entry.description)
}

/// Rebuilds `dir`'s `MEMORY.md` from its memory files (removed when there are none).
fn write_index(dir: &Path) -> Result<(), MemoryError> {
    let entries = list_dir(dir)?;
    let path = dir.join(INDEX_FILE);
    if entries.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_err(&path)(e)),
            _ => Ok(()),
        };
    }
    let lines: Vec<String> = entries.iter().map(index_line).collect();
    write_atomic(&path, &format!("{}\n", lines.join("\n")))
}

mod files;

#[cfg(test)]
mod tests;
