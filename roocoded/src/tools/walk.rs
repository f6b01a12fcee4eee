//! The directory walk shared by Glob and Grep: which files a search sees.
//!
//! Rules, like ripgrep's defaults:
//! - `.gitignore`, `.git/info/exclude`, the user's global git excludes and `.ignore`
//!   files are honoured, and so is `.rooignore` (RooCode's own, same syntax);
//! - inside a git repository git's semantics apply exactly: ignore files above the
//!   repository are not read. Outside any repository `.gitignore` files are honoured
//!   anyway (`require_git(false)`), since a project without `.git` (an unpacked
//!   tarball, a fresh scaffold) still means them; there is no repository boundary to
//!   overstep in that case;
//! - hidden files and directories are skipped, unless the pattern itself names a
//!   hidden component (`.github/**`, `**/.env*`); `.git` itself is always skipped;
//! - symlinks are not followed and symlinked files are not reported, so a link inside
//!   the project cannot lead a search outside the sandbox.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;

use super::ToolError;

/// The custom ignore file RooCode honours everywhere.
pub(crate) const ROOIGNORE: &str = ".rooignore";

/// A walker over `dir` (a real path) with the rules above.
pub(crate) fn walker(dir: &Path, cwd: &Path, include_hidden: bool) -> WalkBuilder {
    let in_git_repo = dir
        .ancestors()
        .any(|d| d.join(".git").symlink_metadata().is_ok());
    let mut builder = WalkBuilder::new(dir);
    builder
        .standard_filters(true)
        .hidden(!include_hidden)
        .require_git(in_git_repo)
        .follow_links(false)
        .add_custom_ignore_filename(ROOIGNORE)
        .current_dir(cwd)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

/// True if some component of a glob starts with a dot (other than `.` and `..`), i.e.
/// the caller is explicitly looking for hidden files.
pub(crate) fn names_hidden(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|part| part.starts_with('.') && part != "." && part != "..")
}

/// Compile a glob the way both tools use it: `*` and `?` do not cross `/`, `**` does,
/// `{a,b}` alternates, `[ab]` is a class.
pub(crate) fn compile_glob(pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| ToolError::InvalidInput(format!("invalid glob pattern {pattern:?}: {e}")))
}

/// True for a walk entry that is a regular file (not a directory, not a symlink).
pub(crate) fn is_regular_file(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_components_are_detected() {
        assert!(names_hidden(".github/**/*.yml"));
        assert!(names_hidden("**/.env*"));
        assert!(!names_hidden("../src/**/*.rs"));
        assert!(!names_hidden("./*.rs"));
    }
}
