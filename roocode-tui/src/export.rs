//! `/export [FILE]`'s file: where the session's Markdown transcript goes ([`target`]:
//! FILE relative to the session's working directory, `~/` the home; by default
//! `roocode-<short id>-<yyyymmdd-hhmm>.md` there, in UTC like every time the TUI shows),
//! and writing it ([`write_new`]): atomically — complete or not at all — and never over
//! an existing file. The binary fetches the events and renders them with
//! [`roocode_client::transcript`]; the [`crate::App`] only asks and says where it wrote.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The file name `/export` uses without FILE: `roocode-7c5e01b2-20261202-1042.md`, at
/// `unix_secs` (UTC).
pub fn default_name(short_id: &str, unix_secs: i64) -> String {
    let stamp = time::OffsetDateTime::from_unix_timestamp(unix_secs)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[year][month][day]-[hour][minute]"
            ))
            .ok()
        })
        .unwrap_or_else(|| unix_secs.to_string());
    format!("roocode-{short_id}-{stamp}.md")
}

/// Where `/export [file]` writes for a session working in `cwd`: `file` as given when
/// absolute, under `home` when it starts with `~/`, else under `cwd`; without `file`,
/// [`default_name`] under `cwd`.
pub fn target(
    cwd: &Path,
    home: Option<&Path>,
    file: Option<&str>,
    short_id: &str,
    unix_secs: i64,
) -> PathBuf {
    let Some(file) = file.map(str::trim).filter(|f| !f.is_empty()) else {
        return cwd.join(default_name(short_id, unix_secs));
    };
    match (file.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => cwd.join(file),
    }
}

/// Writes `text` to `path`, which must not exist: first to a hidden file beside it,
/// synced, then linked to its name — which fails, leaving nothing behind, if a file of
/// that name appeared meanwhile. The error says what to do.
pub fn write_new(path: &Path, text: &str) -> Result<(), String> {
    let shown = path.display();
    let exists = || {
        format!(
            "{shown} exists, and /export never overwrites a file: give another name (/export FILE) or remove it"
        )
    };
    let Some(name) = path.file_name() else {
        return Err(format!(
            "{shown} names no file: give a file name, e.g. /export notes.md"
        ));
    };
    if path.symlink_metadata().is_ok() {
        return Err(exists());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let cannot = |e: std::io::Error| {
        format!(
            "cannot write {shown}: {e} (check that its folder exists and that you may write there)"
        )
    };
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_all()
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(cannot(e));
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
        Err(e) => Err(cannot(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-02 10:42:07 UTC.
    const NOW: i64 = 1_796_208_127;

    #[test]
    fn the_default_name_has_the_short_id_and_the_utc_minute() {
        assert_eq!(
            default_name("7c5e01b2", NOW),
            "roocode-7c5e01b2-20261202-1042.md"
        );
        assert_eq!(default_name("x", 0), "roocode-x-19700101-0000.md");
    }

    #[test]
    fn files_are_relative_to_the_sessions_directory() {
        let cwd = Path::new("/work/proj");
        let home = Some(Path::new("/home/u"));
        let at = |file| target(cwd, home, file, "7c5e01b2", NOW);
        assert_eq!(
            at(None),
            Path::new("/work/proj/roocode-7c5e01b2-20261202-1042.md")
        );
        assert_eq!(at(Some("  ")), at(None), "blank: the default");
        assert_eq!(at(Some("notes/t.md")), Path::new("/work/proj/notes/t.md"));
        assert_eq!(at(Some("/tmp/t.md")), Path::new("/tmp/t.md"));
        assert_eq!(at(Some("~/t.md")), Path::new("/home/u/t.md"));
        assert_eq!(
            target(cwd, None, Some("~/t.md"), "x", NOW),
            Path::new("/work/proj/~/t.md"),
            "no home: taken as a name"
        );
    }

    #[test]
    fn a_new_file_is_written_whole_and_nothing_else_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.md");
        write_new(&path, "# title\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# title\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["t.md"], "no temporary file left");
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.md");
        std::fs::write(&path, "mine").unwrap();
        let err = write_new(&path, "# title\n").unwrap_err();
        assert!(
            err.contains("exists") && err.contains("never overwrites"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        // Nor a dangling symlink's target.
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere.md"), &link).unwrap();
        assert!(write_new(&link, "x").unwrap_err().contains("exists"));
        assert!(!dir.path().join("nowhere.md").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_missing_folder_says_what_to_check() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_new(&dir.path().join("no/such/t.md"), "x").unwrap_err();
        assert!(
            err.starts_with("cannot write ") && err.contains("folder exists"),
            "{err}"
        );
        let err = write_new(Path::new("/"), "x").unwrap_err();
        assert!(err.contains("names no file"), "{err}");
    }
}
