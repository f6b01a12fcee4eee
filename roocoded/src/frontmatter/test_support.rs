//! Test helpers of the loaders: a home and a project folder in a temporary directory,
//! and writing a file into one source's folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::project::UserDirs;

/// A home and a project folder, removed when dropped; `S` is the loader's source, `L`
/// what it loads.
pub(crate) struct Dirs<S, L> {
    _tmp: tempfile::TempDir,
    pub home: PathBuf,
    /// The user's folders: RooCode's at `<home>/.roocode`, Claude Code's at
    /// `<home>/.claude`.
    pub user: UserDirs,
    pub project: PathBuf,
    dir: fn(S, &UserDirs, &Path) -> PathBuf,
    load: fn(&UserDirs, &Path) -> L,
}

impl<S, L> Dirs<S, L> {
    /// Empty folders, for a loader whose source `S` reads `dir(source, home, project)`
    /// and which `load`s from a home and a project.
    pub fn new(dir: fn(S, &UserDirs, &Path) -> PathBuf, load: fn(&UserDirs, &Path) -> L) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let project = tmp.path().join("project");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        Self {
            _tmp: tmp,
            user: UserDirs::at_home(&home),
            home,
            project,
            dir,
            load,
        }
    }

    /// Writes `text` to `file` (a path relative to the folder of `source`), creating
    /// its folders.
    pub fn write(&self, source: S, file: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = (self.dir)(source, &self.user, &self.project).join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// What the loader finds for the home and the project.
    pub fn load(&self) -> L {
        (self.load)(&self.user, &self.project)
    }
}
