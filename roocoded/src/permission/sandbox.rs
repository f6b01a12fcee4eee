//! Layer 2, the path sandbox (DESIGN §8): a file tool's path must really lie inside the
//! project root, a configured additional directory, or (for reads only) one of RooCode's
//! own readable places for the session. Nothing overrides it.
//!
//! "Really" means after the file system resolved it: the path is joined to the working
//! directory and canonicalised (symlinks followed, `..` resolved by the kernel, magic
//! links such as `/proc/self/root` followed). A path that does not exist yet is judged
//! by the real path of its nearest existing ancestor plus the missing rest, which may
//! not contain `..` and may not start at a dangling symlink (writing through one would
//! create its target, wherever that is). Containment is component-wise on real paths,
//! so `/p2` is not inside `/p`.
//!
//! The check is made at one instant; the file tools then open what it let through with
//! [`Checked`] ([`open`]): relative to the directory it was judged inside, refusing any
//! link that leads out of it, so a directory swapped for a symlink between the check and
//! the use cannot escape. Hard links cannot be resolved to their other names: a file
//! with more than one is asked about ([`links`]). File names with control characters are
//! shown escaped and never created ([`names`]).

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::Scope;

pub mod links;
pub mod names;
pub mod open;

pub use open::{Beneath, Checked, Purpose, Strategy};

/// What the caller will do with the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Why a path is refused. The message is written for the model and the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("path {shown} is outside the project root {root}{others}")]
    Outside {
        /// The path as given (resolved against the working directory), plus its real
        /// path when that differs.
        shown: String,
        root: PathBuf,
        /// Empty, or " and the additional directories …".
        others: String,
    },
    #[error("path {path} is in {dir}, which RooCode may read for this session but not write")]
    ReadOnly { path: PathBuf, dir: PathBuf },
    #[error(
        "path {path} uses '..' below a directory that does not exist yet; give a path without '..'"
    )]
    ParentOfMissing { path: PathBuf },
    #[error("path {path} goes through the dangling symbolic link {link}")]
    DanglingSymlink { path: PathBuf, link: PathBuf },
    #[error("cannot resolve path {path}: {message}")]
    Unresolvable { path: PathBuf, message: String },
}

/// Layer 2 for a read: the real path of `path` (relative paths against `scope.cwd`) if it
/// lies inside the project root, an additional directory or a readable directory.
pub fn check_path(path: &Path, scope: &Scope) -> Result<PathBuf, SandboxError> {
    check_access(path, Access::Read, scope)
}

/// Layer 2 for the given access. Readable directories only count for [`Access::Read`].
pub fn check_access(path: &Path, access: Access, scope: &Scope) -> Result<PathBuf, SandboxError> {
    check_beneath(path, access, scope).map(|checked| checked.real().to_path_buf())
}

/// Layer 2 for the given access, keeping the directory the path was judged inside, so
/// that the caller opens it from there ([`Checked`]) rather than by its path again.
pub fn check_beneath(path: &Path, access: Access, scope: &Scope) -> Result<Checked, SandboxError> {
    let given = scope.resolve(path);
    let real = real_path(&given)?;
    let real_root = real_path(&scope.root)?;
    if let Some(checked) = Checked::within(&real, &real_root) {
        return Ok(checked);
    }
    let resolve_dir = |dir: &PathBuf| real_path(&scope.resolve(dir)).ok();
    if let Some(checked) = scope
        .additional_dirs
        .iter()
        .filter_map(resolve_dir)
        .find_map(|dir| Checked::within(&real, &dir))
    {
        return Ok(checked);
    }
    if let Some(dir) = scope
        .readable_dirs
        .iter()
        .filter_map(resolve_dir)
        .find(|dir| real.starts_with(dir))
    {
        return match (access, Checked::within(&real, &dir)) {
            (Access::Read, Some(checked)) => Ok(checked),
            _ => Err(SandboxError::ReadOnly { path: given, dir }),
        };
    }
    let shown = if real == given {
        given.display().to_string()
    } else {
        format!("{} (real path {})", given.display(), real.display())
    };
    let others = if scope.additional_dirs.is_empty() {
        String::new()
    } else {
        let dirs: Vec<String> = scope
            .additional_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        format!(" and the additional directories {}", dirs.join(", "))
    };
    Err(SandboxError::Outside {
        shown,
        root: scope.root.clone(),
        others,
    })
}

/// The real path of an absolute path that may not exist yet: the canonical path of its
/// nearest existing ancestor with the missing components appended.
pub fn real_path(path: &Path) -> Result<PathBuf, SandboxError> {
    let unresolvable = |e: io::Error| SandboxError::Unresolvable {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut missing: Vec<OsString> = Vec::new();
    let mut current = path;
    // How often a path that appeared between two looks is looked at again (something
    // is renaming it right now); past that it is judged as it is.
    let mut retries = 3;
    let base = loop {
        match std::fs::canonicalize(current) {
            Ok(real) => break real,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if current.symlink_metadata().is_ok() {
                    if retries > 0 && std::fs::canonicalize(current).is_ok() {
                        // Not dangling: it was missing a moment ago and is back.
                        retries -= 1;
                        continue;
                    }
                    // The entry exists but cannot be followed: a dangling symlink.
                    return Err(SandboxError::DanglingSymlink {
                        path: path.to_path_buf(),
                        link: current.to_path_buf(),
                    });
                }
                match current.components().next_back() {
                    Some(Component::Normal(name)) => missing.push(name.to_os_string()),
                    Some(Component::CurDir) => {}
                    Some(Component::ParentDir) => {
                        return Err(SandboxError::ParentOfMissing {
                            path: path.to_path_buf(),
                        });
                    }
                    Some(Component::RootDir | Component::Prefix(_)) | None => {
                        return Err(unresolvable(e));
                    }
                }
                current = match current.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent,
                    _ => return Err(unresolvable(e)),
                };
            }
            Err(e) => return Err(unresolvable(e)),
        }
    };
    Ok(missing.iter().rev().fold(base, |acc, name| acc.join(name)))
}

#[cfg(test)]
mod tests;
