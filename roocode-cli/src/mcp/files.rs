//! The files that configure MCP servers, as the daemon reads them (`roocoded`'s
//! `mcp::config`), in merge order: `config.yaml` of the user directory (scope user),
//! the project's `.mcp.json` and `.roocode/config.yaml` (scope project), its
//! `.roocode/config.local.yaml` (scope local). The project is the nearest ancestor of
//! the current directory holding `.git`, else the current directory. A file is read
//! into what its entries say, edited by the editor of its format, and replaced
//! atomically with its permissions kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use roocode_protocol::paths::Paths;

use super::Scope;
use super::entry::{Fields, Held};
use super::{json_edit, yaml_edit};

/// How a file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

/// One config file.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub scope: Scope,
    pub path: PathBuf,
    pub format: Format,
}

/// One config file as it is now.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: ConfigFile,
    /// Its text; `None` when it does not exist.
    pub text: Option<String>,
    pub entries: BTreeMap<String, Held>,
}

impl Loaded {
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or_default()
    }
}

/// Every file, in merge order.
pub struct Files {
    pub all: Vec<ConfigFile>,
}

impl Files {
    /// The files for this process's environment and current directory.
    pub fn locate() -> anyhow::Result<Files> {
        let paths = Paths::from_env()?;
        let cwd = std::env::current_dir()
            .context("cannot tell the current directory (was it deleted?): cd into the project")?;
        Ok(Self::at(&paths.user_dir, &cwd))
    }

    /// The files of user directory `user_dir` and the project holding `cwd`.
    pub fn at(user_dir: &Path, cwd: &Path) -> Files {
        let root = cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(cwd)
            .to_path_buf();
        let file = |scope, path: PathBuf, format| ConfigFile {
            scope,
            path,
            format,
        };
        let user = user_dir.join("config.yaml");
        let project_yaml = root.join(".roocode").join("config.yaml");
        let mut all = vec![
            file(Scope::User, user.clone(), Format::Yaml),
            file(Scope::Project, root.join(".mcp.json"), Format::Json),
        ];
        // The project is the home directory: its user file is not a project file too.
        if !same_file(&project_yaml, &user) {
            all.push(file(Scope::Project, project_yaml, Format::Yaml));
        }
        all.push(file(
            Scope::Local,
            root.join(".roocode").join("config.local.yaml"),
            Format::Yaml,
        ));
        Files { all }
    }

    /// The file `add` writes a scope's servers to.
    pub fn target(&self, scope: Scope) -> &ConfigFile {
        let mut of_scope = self.all.iter().filter(|f| f.scope == scope);
        match of_scope.next() {
            Some(first) => first,
            // Every scope has a file: `at` lists one per scope.
            None => &self.all[0],
        }
    }

    /// Every file, read.
    pub fn load_all(&self) -> anyhow::Result<Vec<Loaded>> {
        self.all.iter().map(ConfigFile::load).collect()
    }

    /// The paths, for messages.
    pub fn listed(files: &[&ConfigFile]) -> String {
        let paths: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        paths.join(", ")
    }
}

impl ConfigFile {
    /// Reads the file and what its entries say; an unreadable or broken file is an
    /// error naming it.
    pub fn load(&self) -> anyhow::Result<Loaded> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(anyhow::anyhow!("cannot read {}: {e}", self.path.display()));
            }
        };
        let entries = match &text {
            None => BTreeMap::new(),
            Some(text) => match self.format {
                Format::Yaml => yaml_edit::entries(text),
                Format::Json => json_edit::entries(text),
            }
            .map_err(|why| self.refused(&why))?,
        };
        Ok(Loaded {
            file: self.clone(),
            text,
            entries,
        })
    }

    /// `text` with a server added.
    pub fn add(&self, text: &str, name: &str, fields: &Fields) -> anyhow::Result<String> {
        match self.format {
            Format::Yaml => yaml_edit::add(text, name, fields),
            Format::Json => json_edit::add(text, name, fields),
        }
        .map_err(|why| self.refused(&why))
    }

    /// `text` without a server.
    pub fn remove(&self, text: &str, name: &str) -> anyhow::Result<String> {
        match self.format {
            Format::Yaml => yaml_edit::remove(text, name),
            Format::Json => json_edit::remove(text, name),
        }
        .map_err(|why| self.refused(&why))
    }

    /// `text` with a server's entry switched on or off.
    pub fn set_enabled(&self, text: &str, name: &str, enabled: bool) -> anyhow::Result<String> {
        match self.format {
            Format::Yaml => yaml_edit::set_enabled(text, name, enabled),
            Format::Json => json_edit::set_enabled(text, name, enabled),
        }
        .map_err(|why| self.refused(&why))
    }

    fn refused(&self, why: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "cannot edit {}: {why}; nothing was changed",
            self.path.display()
        )
    }

    /// Replaces the file with `text` atomically (a temporary file beside it, then a
    /// rename), keeping its permissions; a symlink's target is what gets replaced.
    /// Creates the directory when missing; a local file is kept out of git.
    pub fn write(&self, text: &str) -> anyhow::Result<()> {
        let path = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let shown = self.path.display();
        let dir = path
            .parent()
            .with_context(|| format!("cannot write {shown}: it has no directory"))?;
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        crate::atomic::replace(&path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {shown}: {e}"))?;
        if self.scope == Scope::Local
            && let Some(roocode_dir) = self.path.parent()
        {
            ignore_local(roocode_dir)?;
        }
        Ok(())
    }
}

/// Adds `config.local.yaml` to `.roocode/.gitignore` unless a line already ignores it
/// (as the daemon does when it writes that file): a user's own servers, and the tokens
/// they may hold, are not committed.
fn ignore_local(roocode_dir: &Path) -> anyhow::Result<()> {
    const ENTRY: &str = "config.local.yaml";
    let path = roocode_dir.join(".gitignore");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    if text
        .lines()
        .any(|l| matches!(l.trim(), ENTRY | "/config.local.yaml"))
    {
        return Ok(());
    }
    let mut new = text;
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(ENTRY);
    new.push('\n');
    std::fs::write(&path, new).with_context(|| format!("cannot write {}", path.display()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_nearest_ancestor_with_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let files = Files::at(Path::new("/u"), &sub);
        let paths: Vec<_> = files
            .all
            .iter()
            .map(|f| (f.scope, f.path.clone()))
            .collect();
        assert_eq!(
            paths,
            [
                (Scope::User, PathBuf::from("/u/config.yaml")),
                (Scope::Project, root.join(".mcp.json")),
                (Scope::Project, root.join(".roocode/config.yaml")),
                (Scope::Local, root.join(".roocode/config.local.yaml")),
            ]
        );
        assert_eq!(files.target(Scope::Project).path, root.join(".mcp.json"));
        // No `.git` above: the directory itself.
        let alone = dir.path().join("alone");
        let files = Files::at(Path::new("/u"), &alone);
        assert_eq!(files.target(Scope::Project).path, alone.join(".mcp.json"));
    }

    #[test]
    fn writes_are_atomic_keep_permissions_and_ignore_the_local_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let local = ConfigFile {
            scope: Scope::Local,
            path: dir.path().join(".roocode/config.local.yaml"),
            format: Format::Yaml,
        };
        local.write("a: 1\n").unwrap();
        let gitignore = dir.path().join(".roocode/.gitignore");
        assert_eq!(
            std::fs::read_to_string(&gitignore).unwrap(),
            "config.local.yaml\n"
        );
        std::fs::set_permissions(&local.path, std::fs::Permissions::from_mode(0o600)).unwrap();
        local.write("a: 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&local.path).unwrap(), "a: 2\n");
        let mode = std::fs::metadata(&local.path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            std::fs::read_to_string(&gitignore).unwrap(),
            "config.local.yaml\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path().join(".roocode"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[test]
    fn a_symlinked_file_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/config.yaml");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "a: 1\n").unwrap();
        let link = dir.path().join("config.yaml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let user = ConfigFile {
            scope: Scope::User,
            path: link.clone(),
            format: Format::Yaml,
        };
        user.write("a: 2\n").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "a: 2\n");
    }

    #[test]
    fn a_broken_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcp.json");
        std::fs::write(&path, "{").unwrap();
        let file = ConfigFile {
            scope: Scope::Project,
            path: path.clone(),
            format: Format::Json,
        };
        let err = file.load().unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("cannot edit {}", path.display())),
            "{err}"
        );
        assert!(err.ends_with("nothing was changed"), "{err}");
    }
}
