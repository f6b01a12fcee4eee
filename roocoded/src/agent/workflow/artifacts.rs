//! Artifacts: what one function produces and another consumes (a plan, a review), as
//! files under RooCode's data directory, one folder per session
//! (`<data>/artifacts/<session>/<name>.md`), written atomically and recorded in the
//! store. The model writes an artifact as a fenced block tagged with its name
//! (```` ```plan ````); a `capture_artifact` observer keeps the last such block.

use std::path::{Path, PathBuf};

use super::super::Engine;

/// The largest artifact kept: a bigger block is cut (and says so).
pub const MAX_ARTIFACT_BYTES: usize = 256 * 1024;

impl Engine {
    /// The folder of `session_id`'s artifacts.
    pub fn artifact_dir(&self, session_id: &str) -> PathBuf {
        self.paths.data_dir.join("artifacts").join(session_id)
    }
}

/// The file of the artifact `name` in `dir`.
pub fn artifact_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.md"))
}

/// Writes the artifact atomically (the folder made, 0700: it is the user's data).
pub fn write(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    crate::snapshot::write_atomically(dir, &artifact_path(dir, name), text.as_bytes())
}

/// The artifact's text, if it exists (cut at [`MAX_ARTIFACT_BYTES`]).
pub fn read(dir: &Path, name: &str) -> Option<String> {
    let bytes = std::fs::read(artifact_path(dir, name)).ok()?;
    let cut = &bytes[..bytes.len().min(MAX_ARTIFACT_BYTES)];
    Some(String::from_utf8_lossy(cut).into_owned())
}

/// The last fenced block of `text` whose info string names `name` (```` ```plan ````,
/// ```` ```markdown plan ````), its content without the fences; `None` when there is
/// none. An unclosed last block runs to the end of the text.
pub fn capture(text: &str, name: &str) -> Option<String> {
    let mut found = None;
    let mut open: Option<(String, bool, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                let fence: String = trimmed
                    .chars()
                    .take_while(|c| *c == '`' || *c == '~')
                    .collect();
                if fence.len() >= 3
                    && fence
                        .chars()
                        .all(|c| c == fence.chars().next().unwrap_or('`'))
                {
                    let info = &trimmed[fence.len()..];
                    let tagged = info.split_whitespace().any(|w| w == name);
                    open = Some((fence, tagged, Vec::new()));
                }
            }
            Some((fence, tagged, lines)) => {
                let closing = trimmed.starts_with(fence.as_str())
                    && trimmed.trim_end().chars().all(|c| c == '`' || c == '~');
                if closing {
                    if *tagged {
                        found = Some(lines.join("\n"));
                    }
                    open = None;
                } else {
                    lines.push(line);
                }
            }
        }
    }
    if let Some((_, true, lines)) = open {
        found = Some(lines.join("\n"));
    }
    found
        .map(|t| t.trim_matches('\n').to_string())
        .filter(|t| !t.trim().is_empty())
        .map(|t| cut(t, MAX_ARTIFACT_BYTES))
}

fn cut(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str("\n[… cut: the artifact is limited to 256 KiB]");
    text
}

/// One checklist line of a Markdown artifact: `- [ ] text` or `- [x] text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChecklistItem {
    pub text: String,
    pub done: bool,
}

/// The checklist items of `text`, in order (`-`, `*` or `+` bullets, numbered ones too).
pub fn checklist(text: &str) -> Vec<ChecklistItem> {
    text.lines()
        .filter_map(checklist_item)
        .map(|(item, _)| item)
        .collect()
}

/// The item on `line`, and the byte offset of its mark's character.
fn checklist_item(line: &str) -> Option<(ChecklistItem, usize)> {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let after_bullet = if let Some(r) = rest.strip_prefix(['-', '*', '+']) {
        r
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest[digits..].strip_prefix(['.', ')'])?
    };
    let spaces = after_bullet.len() - after_bullet.trim_start().len();
    if spaces == 0 {
        return None;
    }
    let boxed = after_bullet.trim_start();
    let mark = boxed.strip_prefix('[')?.chars().next()?;
    let after = boxed
        .strip_prefix('[')?
        .get(mark.len_utf8()..)?
        .strip_prefix(']')?;
    let done = match mark {
        ' ' => false,
        'x' | 'X' => true,
        _ => return None,
    };
    let offset = indent + (rest.len() - after_bullet.len()) + spaces + 1;
    Some((
        ChecklistItem {
            text: after.trim().to_string(),
            done,
        },
        offset,
    ))
}

/// Whether two task texts name the same task (case, punctuation and spacing ignored).
pub fn same_task(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace())
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

/// `text` with the open checklist items that `done` names ticked; `None` when nothing
/// changed.
pub fn tick(text: &str, done: &[String]) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match checklist_item(body) {
            Some((item, offset)) if !item.done && done.iter().any(|d| same_task(d, &item.text)) => {
                out.push_str(&line[..offset]);
                out.push('x');
                out.push_str(&line[offset + 1..]);
                changed = true;
            }
            _ => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// A stable digest of an artifact's text (FNV-1a, hex).
pub fn digest(text: &str) -> String {
    format!("{:016x}", crate::workflow::fnv(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_takes_the_last_block_tagged_with_the_name() {
        let text = "Here:\n```plan\n- [ ] one\n```\nthen\n```rust\nfn x() {}\n```\n```markdown plan\n- [ ] two\n- [ ] three\n```\n";
        assert_eq!(
            capture(text, "plan").as_deref(),
            Some("- [ ] two\n- [ ] three")
        );
        assert_eq!(capture(text, "review"), None);
        assert_eq!(
            capture("```plan\n```", "plan"),
            None,
            "an empty block is nothing"
        );
        assert_eq!(
            capture("```plan\nunclosed\nto the end", "plan").as_deref(),
            Some("unclosed\nto the end")
        );
        // a block of another name holding a tagged fence line inside is not it
        assert_eq!(capture("````md\n```plan\nx\n```\n````", "plan"), None);
        assert_eq!(capture("~~~plan\nx\n~~~", "plan").as_deref(), Some("x"));
    }

    #[test]
    fn checklists_are_read_and_ticked() {
        let text = "# Plan\n- [ ] Add the parser\n  * [x] Write tests\n1. [ ] Update the README.\n- not an item\n- [?] odd\n";
        assert_eq!(
            checklist(text),
            [
                ChecklistItem {
                    text: "Add the parser".into(),
                    done: false
                },
                ChecklistItem {
                    text: "Write tests".into(),
                    done: true
                },
                ChecklistItem {
                    text: "Update the README.".into(),
                    done: false
                },
            ]
        );
        let ticked = tick(text, &["add the parser".into(), "update the readme".into()]).unwrap();
        assert!(ticked.contains("- [x] Add the parser\n"), "{ticked}");
        assert!(ticked.contains("1. [x] Update the README.\n"), "{ticked}");
        assert!(checklist(&ticked).iter().all(|i| i.done));
        assert_eq!(
            tick(&ticked, &["Add the parser".into()]),
            None,
            "nothing left to tick"
        );
    }

    #[test]
    fn artifacts_are_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("artifacts/s1");
        write(&dir, "plan", "- [ ] a\n").unwrap();
        assert_eq!(read(&dir, "plan").as_deref(), Some("- [ ] a\n"));
        assert_eq!(read(&dir, "review"), None);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
