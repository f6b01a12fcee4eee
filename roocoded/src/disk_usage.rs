//! Sizes of RooCode's data on disk, for the doctor's disk checks and `prune`'s report:
//! what a file or a directory tree holds (the
//! files' lengths, symlinks not followed, at most [`MAX_ENTRIES`] entries walked so a
//! huge tree cannot stall the report), what each entry of a directory holds, and
//! sizes as people read them (`512 B`, `3.4 MiB`).

use std::path::Path;

/// The most entries one measure walks; past it the size is a lower bound.
pub const MAX_ENTRIES: u64 = 1_000_000;

/// What a file or tree holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    pub bytes: u64,
    pub files: u64,
    /// The walk stopped at [`MAX_ENTRIES`]: the real size is larger.
    pub partial: bool,
}

impl Size {
    pub fn add(&mut self, other: Size) {
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.files = self.files.saturating_add(other.files);
        self.partial |= other.partial;
    }

    /// `3.4 MiB in 12 files`, `at least …` when the walk stopped early.
    pub fn text(&self) -> String {
        let files = if self.files == 1 { "file" } else { "files" };
        format!(
            "{}{} in {} {files}",
            if self.partial { "at least " } else { "" },
            human(self.bytes),
            self.files
        )
    }
}

/// What `path` holds: a file's length, a directory's files; nothing when absent.
pub fn measure(path: &Path) -> Size {
    let mut size = Size::default();
    let mut budget = MAX_ENTRIES;
    walk(path, &mut size, &mut budget);
    size
}

fn walk(path: &Path, size: &mut Size, budget: &mut u64) {
    if *budget == 0 {
        size.partial = true;
        return;
    }
    *budget -= 1;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_file() {
        size.bytes = size.bytes.saturating_add(meta.len());
        size.files += 1;
    } else if meta.is_dir()
        && let Ok(entries) = std::fs::read_dir(path)
    {
        for entry in entries.flatten() {
            walk(&entry.path(), size, budget);
        }
    }
}

/// Each entry of the directory `dir` (its file name) with what it holds; empty when
/// `dir` is absent.
pub fn entries(dir: &Path) -> Vec<(String, Size)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Size)> = read
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                measure(&e.path()),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `512 B`, `1.2 KiB`, `3.4 MiB`, `5.6 GiB`.
pub fn human(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else if b < KIB * KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_its_files_lengths_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/one"), vec![0u8; 100]).unwrap();
        std::fs::write(root.join("a/b/two"), vec![0u8; 24]).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("big"), vec![0u8; 10_000]).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a/link")).unwrap();
        assert_eq!(
            measure(root),
            Size {
                bytes: 124,
                files: 2,
                partial: false
            }
        );
        assert_eq!(measure(&root.join("a/one")).bytes, 100);
        assert_eq!(measure(&root.join("missing")), Size::default());
        let listed = entries(&root.join("a"));
        let names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "link", "one"]);
        assert_eq!(listed[0].1.bytes, 24);
        assert_eq!(listed[1].1, Size::default(), "a link is not followed");
        assert!(entries(&root.join("missing")).is_empty());
    }

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1023), "1023 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 * 1024 * 1024 + 400 * 1024), "3.4 MiB");
        assert_eq!(human(5 * 1024 * 1024 * 1024), "5.0 GiB");
        let mut size = Size {
            bytes: 1536,
            files: 1,
            partial: false,
        };
        assert_eq!(size.text(), "1.5 KiB in 1 file");
        size.add(Size {
            bytes: 512,
            files: 2,
            partial: true,
        });
        assert_eq!(size.text(), "at least 2.0 KiB in 3 files");
    }
}
