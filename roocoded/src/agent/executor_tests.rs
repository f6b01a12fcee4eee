//! What the executor does to a result before it is stored: a large result with images
//! keeps its images when its text goes to a file, and redaction leaves them alone.

use super::{redact_result, spill_large};
use crate::tools::{ToolOutput, display_text};

#[test]
fn a_large_result_spills_its_text_and_keeps_its_images() {
    let dir = tempfile::tempdir().unwrap();
    let mut out = ToolOutput::text("line\n".repeat(10_000)).with_image("image/png", "AAAA");
    spill_large(&mut out, 1_000, dir.path(), "c1");
    assert!(
        out.content.starts_with("[Output too large"),
        "{}",
        out.content
    );
    assert_eq!(out.images.len(), 1);
    assert_eq!(out.images[0].data, "AAAA");
    let saved = std::fs::read_to_string(dir.path().join("c1.txt")).unwrap();
    assert_eq!(
        saved,
        "line\n".repeat(10_000),
        "only the text is in the file"
    );
}

#[test]
fn redaction_keeps_images_and_clients_are_shown_a_note() {
    let key = concat!("AKIA", "Z7XQ3MNB4VKD2LPW");
    let mut out = ToolOutput::text(format!("key {key}")).with_image("image/png", "AAAA");
    redact_result(&mut out);
    assert!(!out.content.contains(key), "{}", out.content);
    assert_eq!(out.images.len(), 1);
    assert_eq!(
        display_text(&out.content, &out.images),
        format!("{}\n[image image/png, 3 B]", out.content)
    );
    assert_eq!(
        display_text("", &out.images),
        "[image image/png, 3 B]",
        "no blank line before the note of an image alone"
    );
}
