//! Keeps the local config out of git: "allow always" makes sure `.roocode/.gitignore`
//! lists `config.local.yaml` (creating the file if missing, never duplicating the
//! entry, keeping whatever else it says), so a user's personal rules are not committed
//! and a cloned repository cannot ship them.

use std::io;
use std::path::Path;

/// The entry, relative to `.roocode/`.
const ENTRY: &str = "config.local.yaml";

/// Adds `config.local.yaml` to `<root>/.roocode/.gitignore` unless a line already
/// ignores it.
pub fn ignore_local_config(root: &Path) -> io::Result<()> {
    let path = root.join(".roocode").join(".gitignore");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let listed = text.lines().any(|line| {
        let line = line.trim();
        line == ENTRY || line == format!("/{ENTRY}")
    });
    if listed {
        return Ok(());
    }
    let mut new_text = text;
    if !new_text.is_empty() && !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    new_text.push_str(ENTRY);
    new_text.push('\n');
    super::write_atomically(&path, &new_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gitignore(root: &Path) -> String {
        std::fs::read_to_string(root.join(".roocode/.gitignore")).unwrap()
    }

    #[test]
    fn created_when_missing_and_never_duplicated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".roocode")).unwrap();
        ignore_local_config(dir.path()).unwrap();
        ignore_local_config(dir.path()).unwrap();
        assert_eq!(gitignore(dir.path()), "config.local.yaml\n");
    }

    #[test]
    fn appended_to_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".roocode")).unwrap();
        std::fs::write(dir.path().join(".roocode/.gitignore"), "# mine\nmemory/").unwrap();
        ignore_local_config(dir.path()).unwrap();
        assert_eq!(
            gitignore(dir.path()),
            "# mine\nmemory/\nconfig.local.yaml\n"
        );
        std::fs::write(
            dir.path().join(".roocode/.gitignore"),
            "/config.local.yaml\n",
        )
        .unwrap();
        ignore_local_config(dir.path()).unwrap();
        assert_eq!(gitignore(dir.path()), "/config.local.yaml\n");
    }
}
