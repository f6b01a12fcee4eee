//! Layer 1 of context management: a tool output too large for the conversation is
//! written whole to a file, and the conversation keeps a head/tail preview plus the
//! path, to be read in pages with the `Read` tool. Nearly free, and nothing is lost.

use std::io;
use std::path::{Path, PathBuf};

use roocode_protocol::content::{ContentBlock, Message};

use super::budget::group;

/// Outputs longer than this many chars are spilled to disk by default.
pub const DEFAULT_THRESHOLD_CHARS: usize = 25_000;
/// Approximate size of the preview's head, cut on a line boundary.
pub const HEAD_CHARS: usize = 2_000;
/// Approximate size of the preview's tail, cut on a line boundary.
pub const TAIL_CHARS: usize = 1_000;

/// How every spilled preview starts; [`spilled_path`] recognises it.
const MARKER: &str = "[Output too large for the conversation; saved in full to ";

/// What the conversation keeps of one tool output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spilled {
    /// The output itself, or the preview that replaces it.
    pub text: String,
    /// Where the whole output was written, if it was.
    pub path: Option<PathBuf>,
}

/// Spills `output` to `dir/<call_id>.txt` if it has more than `threshold_chars`
/// chars, returning the preview to keep instead; otherwise returns it unchanged.
pub fn spill(
    output: &str,
    threshold_chars: usize,
    dir: &Path,
    call_id: &str,
) -> io::Result<Spilled> {
    if within(output, threshold_chars) {
        return Ok(Spilled {
            text: output.to_owned(),
            path: None,
        });
    }
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.txt", safe_file_name(call_id)));
    std::fs::write(&path, output)?;
    Ok(Spilled {
        text: preview(output, &path),
        path: Some(path),
    })
}

/// The threshold layer 1 applies: the configured one (`context.large_result_chars`),
/// lowered for small context windows so that no single result takes more than about a
/// tenth of the window (at four characters a token) — but never below what a preview
/// itself takes, or spilling would save nothing.
pub fn threshold_for(configured_chars: usize, window_tokens: u64) -> usize {
    let tenth_of_window =
        usize::try_from(window_tokens.saturating_mul(4) / 10).unwrap_or(usize::MAX);
    configured_chars.min(tenth_of_window.max(HEAD_CHARS + TAIL_CHARS + 1_000))
}

/// Whether `output` has at most `threshold_chars` characters (bytes ≥ chars, so the
/// cheap check settles most outputs).
fn within(output: &str, threshold_chars: usize) -> bool {
    output.len() <= threshold_chars || output.chars().count() <= threshold_chars
}

/// What [`shrink_largest`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ShrinkReport {
    /// Results replaced by a preview.
    pub shrunk: usize,
    /// Characters the context lost (the files keep them).
    pub chars_saved: usize,
}

/// Recovery's `truncate`: the tool results of `messages` longer than `threshold_chars`
/// — recent ones too, largest first — are spilled to `dir` as layer 1 spills a new
/// result, the conversation keeping a preview. Results that are previews already are
/// left alone; one that cannot be saved keeps its start and end.
pub fn shrink_largest(
    messages: &mut [Message],
    threshold_chars: usize,
    dir: &Path,
) -> ShrinkReport {
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (m, message) in messages.iter().enumerate() {
        for (b, block) in message.content.iter().enumerate() {
            if let ContentBlock::ToolResult { content, .. } = block
                && spilled_path(content).is_none()
                && !within(content, threshold_chars)
            {
                found.push((content.len(), m, b));
            }
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut report = ShrinkReport::default();
    for (_, m, b) in found {
        let ContentBlock::ToolResult {
            tool_use_id,
            content,
            ..
        } = &mut messages[m].content[b]
        else {
            continue;
        };
        let name = format!("{tool_use_id}-shrunk");
        let kept = match spill(content, threshold_chars, dir, &name) {
            Ok(spilled) => spilled.text,
            Err(e) => unsaved_preview(content, threshold_chars, &e.to_string()),
        };
        if kept.len() < content.len() {
            report.shrunk += 1;
            report.chars_saved += content.chars().count() - kept.chars().count();
            *content = kept;
        }
    }
    report
}

/// The file a spilled preview points to, if `text` is one.
pub fn spilled_path(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(MARKER)?;
    // the file name is `<safe id>.txt`, so this ends the path even if a folder has " ("
    let end = rest.find(".txt (")?;
    Some(&rest[..end + 4])
}

/// Keeps `[A-Za-z0-9_-]`, maps anything else to `_`, and bounds the length, so a call
/// id can never name a path outside `dir` (`..`, `/`) or a hidden file.
fn safe_file_name(call_id: &str) -> String {
    let name: String = call_id
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "result".into()
    } else {
        name
    }
}

/// Byte index where the head ends: after the last whole line within `max_chars`
/// chars, or at a char boundary if the first line alone is longer.
fn head_end(text: &str, max_chars: usize) -> usize {
    let limit = byte_at_char(text, max_chars);
    match text[..limit].rfind('\n') {
        Some(nl) if limit < text.len() => nl + 1,
        _ => limit,
    }
}

/// Byte index where the tail starts: at the first whole line within the last
/// `max_chars` chars, or at a char boundary if the last line alone is longer.
fn tail_start(text: &str, max_chars: usize) -> usize {
    let total = text.chars().count();
    let start = byte_at_char(text, total.saturating_sub(max_chars));
    if start == 0 {
        return 0;
    }
    if text.as_bytes()[start - 1] == b'\n' {
        return start;
    }
    match text[start..].find('\n') {
        Some(nl) if start + nl + 1 < text.len() => start + nl + 1,
        _ => start,
    }
}

/// Byte index of char number `n` (or the end).
fn byte_at_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

fn line_count(text: &str) -> usize {
    text.lines().count()
}

fn preview(output: &str, path: &Path) -> String {
    let lines = line_count(output);
    let head_lines = line_count(&output[..head_end(output, HEAD_CHARS)]);
    let path = path.display();
    let header = format!(
        "{MARKER}{path} ({} chars, {} lines). Only the start and the end are shown. \
         Read the rest in pages with the Read tool: file_path \"{path}\", offset = first \
         line (1-based), limit = number of lines (e.g. offset {}, limit 200).]\n\n",
        group(output.chars().count() as u64),
        group(lines as u64),
        head_lines + 1,
    );
    header + &head_and_tail(output)
}

/// What the conversation keeps of an output over `threshold_chars` that could not be
/// saved to a file (`why`): the same start and end as a preview, saying the middle is
/// lost. Outputs within the threshold come back unchanged.
pub fn unsaved_preview(output: &str, threshold_chars: usize, why: &str) -> String {
    if within(output, threshold_chars) {
        return output.to_owned();
    }
    format!(
        "[Output too large for the conversation ({} chars), and it could not be saved to a \
         file ({why}): only the start and the end are shown; run the command again with a \
         narrower output if you need the middle.]\n\n{}",
        group(output.chars().count() as u64),
        head_and_tail(output)
    )
}

/// The first [`HEAD_CHARS`] and last [`TAIL_CHARS`] of `output` on line boundaries,
/// with a line saying how much is omitted between them.
fn head_and_tail(output: &str) -> String {
    let head_end = head_end(output, HEAD_CHARS);
    let tail_start = tail_start(output, TAIL_CHARS).max(head_end);
    let head = &output[..head_end];
    let tail = &output[tail_start..];
    let head_lines = line_count(head);
    // 1-based line where the tail starts (it may start mid-line when a line is huge)
    let tail_line = output[..tail_start].matches('\n').count() + 1;
    let omitted = &output[head_end..tail_start];
    let mut text = format!("--- lines 1-{head_lines} ---\n");
    text.push_str(head);
    if !head.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "--- {} chars omitted ---\n",
        group(omitted.chars().count() as u64)
    ));
    text.push_str(&format!("--- from line {tail_line} to the end ---\n"));
    text.push_str(tail);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n)
            .map(|i| format!("line {i:05} {}\n", "x".repeat(38)))
            .collect()
    }

    #[test]
    fn shrink_largest_spills_recent_results_and_leaves_previews_alone() {
        let dir = tempfile::tempdir().unwrap();
        let big = numbered(400);
        let result = |id: &str, content: &str| ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        };
        let mut messages = vec![Message {
            role: roocode_protocol::content::Role::User,
            content: vec![result("a", &big), result("b", "small"), result("c", &big)],
        }];
        let report = shrink_largest(&mut messages, 5_000, dir.path());
        assert_eq!(report.shrunk, 2);
        assert!(report.chars_saved > 2 * (big.len() - 5_000));
        let ContentBlock::ToolResult { content, .. } = &messages[0].content[0] else {
            panic!()
        };
        let path = spilled_path(content).expect("a preview");
        assert_eq!(std::fs::read_to_string(path).unwrap(), big);
        // Previews are not shrunk again; nothing is left to do.
        let again = shrink_largest(&mut messages, 5_000, dir.path());
        assert_eq!(again, ShrinkReport::default());
    }

    #[test]
    fn small_windows_lower_the_threshold() {
        // a 200k window keeps the configured threshold
        assert_eq!(threshold_for(25_000, 200_000), 25_000);
        // a 16k window: a tenth of it, about 6,400 chars
        assert_eq!(threshold_for(25_000, 16_000), 6_400);
        // never below a preview's own size
        assert_eq!(
            threshold_for(25_000, 2_000),
            HEAD_CHARS + TAIL_CHARS + 1_000
        );
        // a lower configured threshold wins
        assert_eq!(threshold_for(1_000, 200_000), 1_000);
    }

    #[test]
    fn an_output_that_cannot_be_saved_is_cut_to_its_start_and_end() {
        let big = numbered(2_000);
        let text = unsaved_preview(&big, 25_000, "disk full");
        assert!(
            text.starts_with("[Output too large for the conversation ("),
            "{text}"
        );
        assert!(text.contains("(disk full)"));
        assert!(text.contains("line 00001 ") && text.contains("line 02000 "));
        assert!(!text.contains("line 01000 "));
        assert!(text.chars().count() < HEAD_CHARS + TAIL_CHARS + 600);
        assert_eq!(unsaved_preview("short\n", 25_000, "x"), "short\n");
    }

    #[test]
    fn short_output_is_unchanged_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = spill("hello\nworld\n", 25_000, &dir.path().join("r"), "c1").unwrap();
        assert_eq!(out.text, "hello\nworld\n");
        assert_eq!(out.path, None);
        assert!(!dir.path().join("r").exists());
        // exactly at the threshold, counted in chars not bytes
        let s = "é".repeat(10);
        assert_eq!(spill(&s, 10, dir.path(), "c").unwrap().path, None);
    }

    #[test]
    fn large_output_is_written_whole_with_a_preview() {
        let dir = tempfile::tempdir().unwrap();
        let output = numbered(1_000); // 50 chars per line
        let sub = dir.path().join("spill/nested");
        let out = spill(&output, DEFAULT_THRESHOLD_CHARS, &sub, "toolu_01").unwrap();
        let path = out.path.clone().unwrap();
        assert_eq!(path, sub.join("toolu_01.txt"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), output);

        let text = &out.text;
        assert!(text.len() < 4_000, "preview is {} bytes", text.len());
        assert!(text.contains("50,000 chars, 1,000 lines"), "{text}");
        assert!(text.contains(&format!("file_path \"{}\"", path.display())));
        assert!(text.contains("Read") && text.contains("offset") && text.contains("limit"));
        assert_eq!(spilled_path(text), Some(path.to_str().unwrap()));
        // head: whole lines only, the first 40 (2,000 / 50)
        assert!(text.contains("--- lines 1-40 ---\nline 00001 "));
        assert!(text.contains("line 00040 "));
        assert!(!text.contains("line 00041 "));
        assert!(text.contains("offset 41, limit 200"));
        // tail: the last 20 whole lines, ending with the output's end
        assert!(text.contains("--- from line 981 to the end ---\nline 00981 "));
        assert!(!text.contains("line 00980 "));
        assert!(text.ends_with(&format!("line 01000 {}\n", "x".repeat(38))));
        assert!(text.contains("--- 47,000 chars omitted ---"));
    }

    #[test]
    fn utf8_boundaries_are_safe_on_one_huge_line() {
        let dir = tempfile::tempdir().unwrap();
        // multi-byte chars and no newline at all: cuts fall on char boundaries
        let output = "日本語🦀é".repeat(10_000);
        let out = spill(&output, 1_000, dir.path(), "c").unwrap();
        let path = out.path.unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), output);
        let head: String = output.chars().take(HEAD_CHARS).collect();
        let tail: String = {
            let n = output.chars().count();
            output.chars().skip(n - TAIL_CHARS).collect()
        };
        assert!(out.text.contains(&head));
        assert!(out.text.ends_with(&tail));
        assert!(out.text.contains("50,000 chars, 1 lines"));
    }

    #[test]
    fn low_threshold_never_overlaps_head_and_tail() {
        let dir = tempfile::tempdir().unwrap();
        let output = numbered(30); // 1,500 chars: head covers it all
        let out = spill(&output, 100, dir.path(), "c").unwrap();
        assert_eq!(out.text.matches("line 00030").count(), 1);
        assert!(out.text.contains("--- 0 chars omitted ---"));
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(safe_file_name("toolu_01A-b"), "toolu_01A-b");
        assert_eq!(safe_file_name("../../etc/passwd"), "______etc_passwd");
        assert_eq!(safe_file_name(""), "result");
        assert_eq!(safe_file_name(&"a".repeat(500)).len(), 100);
        let dir = tempfile::tempdir().unwrap();
        let out = spill(&"z".repeat(50), 10, dir.path(), "../x").unwrap();
        assert_eq!(out.path.unwrap(), dir.path().join("___x.txt"));
    }

    #[test]
    fn plain_text_is_not_a_spilled_path() {
        assert_eq!(spilled_path("hello"), None);
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a (1)");
        let out = spill(&"q".repeat(50), 10, &odd, "id").unwrap();
        assert_eq!(spilled_path(&out.text), out.path.unwrap().to_str());
    }
}
