//! Tests of the path sandbox on real temp directories and symlinks.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::*;

/// `<tmp>/p` (the project, with `src/main.rs`), `<tmp>/p2/f.txt`,
/// `<tmp>/outside/secret.txt`.
struct Fixture {
    _dir: tempfile::TempDir,
    top: PathBuf,
    scope: Scope,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        for d in ["p/src", "p2", "outside"] {
            std::fs::create_dir_all(top.join(d)).unwrap();
        }
        std::fs::write(top.join("p/src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(top.join("p2/f.txt"), "x").unwrap();
        std::fs::write(top.join("outside/secret.txt"), "s").unwrap();
        let root = top.join("p");
        let scope = Scope::new(root.clone(), root);
        Self {
            _dir: dir,
            top,
            scope,
        }
    }

    fn root(&self) -> PathBuf {
        self.top.join("p")
    }

    fn read(&self, path: impl AsRef<Path>) -> Result<PathBuf, SandboxError> {
        check_path(path.as_ref(), &self.scope)
    }

    fn write(&self, path: impl AsRef<Path>) -> Result<PathBuf, SandboxError> {
        check_access(path.as_ref(), Access::Write, &self.scope)
    }
}

#[test]
fn paths_inside_the_project_resolve_to_real_paths() {
    let fx = Fixture::new();
    let main = fx.root().join("src/main.rs");
    assert_eq!(fx.read("src/main.rs").unwrap(), main);
    assert_eq!(fx.read("./src/../src/main.rs").unwrap(), main);
    assert_eq!(fx.read(&main).unwrap(), main);
    assert_eq!(fx.read("").unwrap(), fx.root());
    // A file that does not exist yet, in a directory that does not either.
    assert_eq!(
        fx.write("new/dir/file.txt").unwrap(),
        fx.root().join("new/dir/file.txt")
    );
}

#[test]
fn dot_dot_escape_is_denied() {
    let fx = Fixture::new();
    let err = fx.read("../outside/secret.txt").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path {root}/../outside/secret.txt (real path {top}/outside/secret.txt) \
             is outside the project root {root}",
            root = fx.root().display(),
            top = fx.top.display()
        )
    );
    assert!(fx.write("../outside/new.txt").is_err());
    assert!(fx.read("src/../../outside").is_err());
}

#[test]
fn dot_dot_below_a_missing_directory_is_denied() {
    let fx = Fixture::new();
    let err = fx.write("missing/../../outside/x").unwrap_err();
    assert!(matches!(err, SandboxError::ParentOfMissing { .. }), "{err}");
}

#[test]
fn absolute_path_outside_is_denied() {
    let fx = Fixture::new();
    let err = fx.read("/etc/passwd").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path /etc/passwd is outside the project root {}",
            fx.root().display()
        )
    );
}

#[test]
fn symlink_inside_pointing_out_is_denied() {
    let fx = Fixture::new();
    symlink("/etc", fx.root().join("etc")).unwrap();
    let err = fx.read("etc/passwd").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path {root}/etc/passwd (real path /etc/passwd) is outside the project root {root}",
            root = fx.root().display()
        )
    );
    assert!(fx.read("etc").is_err());
}

#[test]
fn symlinked_parent_directory_is_followed() {
    let fx = Fixture::new();
    symlink(fx.top.join("outside"), fx.root().join("out")).unwrap();
    assert!(fx.read("out/secret.txt").is_err());
    // A new file under the symlinked directory would be created outside.
    assert!(fx.write("out/new.txt").is_err());
    assert!(fx.write("out/new/deeper.txt").is_err());
    // A symlink that stays inside is fine, and resolves to its target.
    symlink(fx.root().join("src"), fx.root().join("code")).unwrap();
    assert_eq!(
        fx.read("code/main.rs").unwrap(),
        fx.root().join("src/main.rs")
    );
}

#[test]
fn project_root_reached_through_a_symlink_is_still_the_project() {
    let fx = Fixture::new();
    let alias = fx.top.join("alias");
    symlink(fx.root(), &alias).unwrap();
    let scope = Scope::new(alias.clone(), alias);
    assert_eq!(
        check_path(Path::new("src/main.rs"), &scope).unwrap(),
        fx.root().join("src/main.rs")
    );
}

#[test]
fn dangling_symlink_is_denied() {
    let fx = Fixture::new();
    symlink(fx.top.join("outside/nothing"), fx.root().join("dl")).unwrap();
    let err = fx.write("dl").unwrap_err();
    assert!(matches!(err, SandboxError::DanglingSymlink { .. }), "{err}");
    assert!(fx.write("dl/child").is_err());
}

#[test]
fn proc_self_root_is_canonicalised() {
    let fx = Fixture::new();
    let err = fx.read("/proc/self/root/etc/passwd").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path /proc/self/root/etc/passwd (real path /etc/passwd) is outside the project root {}",
            fx.root().display()
        )
    );
    // The same trick pointing into the project lands inside it.
    let inside = format!("/proc/self/root{}/src/main.rs", fx.root().display());
    assert_eq!(fx.read(inside).unwrap(), fx.root().join("src/main.rs"));
}

#[test]
fn sibling_with_common_prefix_is_outside() {
    let fx = Fixture::new();
    let p2 = fx.top.join("p2/f.txt");
    assert!(
        p2.to_string_lossy()
            .starts_with(&*fx.root().to_string_lossy())
    );
    assert!(matches!(
        fx.read(&p2).unwrap_err(),
        SandboxError::Outside { .. }
    ));
    assert!(fx.read("../p2").is_err());
}

#[test]
fn additional_directories_allow_read_and_write() {
    let mut fx = Fixture::new();
    let secret = fx.top.join("outside/secret.txt");
    let err = fx.read(&secret).unwrap_err();
    assert!(!err.to_string().contains("additional"));
    fx.scope.additional_dirs = vec![fx.top.join("outside")];
    assert_eq!(fx.read(&secret).unwrap(), secret);
    assert_eq!(
        fx.write(fx.top.join("outside/new.txt")).unwrap(),
        fx.top.join("outside/new.txt")
    );
    // Listed in the message when still outside.
    assert_eq!(
        fx.read("/etc/passwd").unwrap_err().to_string(),
        format!(
            "path /etc/passwd is outside the project root {} and the additional directories {}",
            fx.root().display(),
            fx.top.join("outside").display()
        )
    );
}

#[test]
fn readable_directories_allow_reads_only() {
    let mut fx = Fixture::new();
    let secret = fx.top.join("outside/secret.txt");
    fx.scope.readable_dirs = vec![fx.top.join("outside")];
    assert_eq!(fx.read(&secret).unwrap(), secret);
    let err = fx.write(&secret).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path {} is in {}, which RooCode may read for this session but not write",
            secret.display(),
            fx.top.join("outside").display()
        )
    );
    assert!(fx.write(fx.top.join("outside/new.txt")).is_err());
}
