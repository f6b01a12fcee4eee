//! A small JSON document in RooCode's data directory that the daemon alone writes
//! (the MCP servers' and the hooks' approvals): read whole, changed under a lock and
//! replaced atomically, so a reader never sees half a file and two approvals given at
//! once are both kept.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// One JSON file (see the module doc).
pub struct JsonFile {
    path: PathBuf,
    /// Held while the file is rewritten.
    writing: Mutex<()>,
}

impl JsonFile {
    pub fn new(path: PathBuf) -> Self {
        JsonFile {
            path,
            writing: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The document; its default when the file does not exist yet.
    pub fn read<T: DeserializeOwned + Default>(&self) -> std::io::Result<T> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{} is not valid: {e}", self.path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
            Err(e) => Err(e),
        }
    }

    /// Reads the document, lets `change` edit it and writes it back atomically.
    pub fn update<T: DeserializeOwned + Default + Serialize>(
        &self,
        change: impl FnOnce(&mut T),
    ) -> std::io::Result<()> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let mut doc: T = self.read()?;
        change(&mut doc);
        let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }
}

/// Seconds since the Unix epoch, as approvals record when they were given.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A project as approvals name it: its root, resolved.
pub fn project_key(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_the_default_and_updates_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = JsonFile::new(dir.path().join("sub/doc.json"));
        let empty: Vec<String> = file.read().unwrap();
        assert!(empty.is_empty());
        file.update(|d: &mut Vec<String>| d.push("a".into()))
            .unwrap();
        file.update(|d: &mut Vec<String>| d.push("b".into()))
            .unwrap();
        assert_eq!(file.read::<Vec<String>>().unwrap(), ["a", "b"]);
        std::fs::write(file.path(), "{broken").unwrap();
        let err = file.read::<Vec<String>>().unwrap_err();
        assert!(err.to_string().contains("is not valid"), "{err}");
    }
}
