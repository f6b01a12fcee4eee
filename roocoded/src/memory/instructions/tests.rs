//! Tests of instruction-file loading and `@include` expansion, on temp directories.

use std::path::{Path, PathBuf};

use super::*;

struct Dirs {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    user: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("proj");
    let user = base.join("home/.roocode");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    Dirs {
        _tmp: tmp,
        root,
        user,
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load(d: &Dirs) -> String {
    load_instructions(&d.root, &d.user).unwrap().unwrap()
}

#[test]
fn nothing_to_load_is_none() {
    let d = dirs();
    assert_eq!(load_instructions(&d.root, &d.user).unwrap(), None);
    write(&d.root.join("ROOCODE.md"), "  \n\n");
    assert_eq!(load_instructions(&d.root, &d.user).unwrap(), None);
}

#[test]
fn project_first_then_local_then_user_with_separators() {
    let d = dirs();
    write(&d.user.join("ROOCODE.md"), "user rules\n");
    write(&d.root.join(".roocode/ROOCODE.md"), "local rules\n");
    write(&d.root.join("ROOCODE.md"), "project rules\n");
    write(&d.root.join("AGENTS.md"), "agents rules\n");
    assert_eq!(
        load(&d),
        "project rules\n\n---\n\nlocal rules\n\n---\n\nuser rules"
    );
}

#[test]
fn local_file_alone_still_disables_the_fallback() {
    let d = dirs();
    write(&d.root.join(".roocode/ROOCODE.md"), "local");
    write(&d.root.join("CLAUDE.md"), "claude");
    assert_eq!(load(&d), "local");
}

#[test]
fn agents_then_claude_fallback() {
    let d = dirs();
    write(&d.root.join("CLAUDE.md"), "claude rules");
    write(&d.user.join("ROOCODE.md"), "user rules");
    assert_eq!(load(&d), "claude rules\n\n---\n\nuser rules");
    write(&d.root.join("AGENTS.md"), "agents rules");
    assert_eq!(load(&d), "agents rules\n\n---\n\nuser rules");
}

#[test]
fn include_is_relative_to_the_including_file_and_nests() {
    let d = dirs();
    write(
        &d.root.join("ROOCODE.md"),
        "top\n  @include docs/style.md  \nbottom\n",
    );
    write(
        &d.root.join("docs/style.md"),
        "style\n@include sub/deep.md\n",
    );
    write(&d.root.join("docs/sub/deep.md"), "deep\n");
    // The user file includes relative to the user directory.
    write(&d.user.join("ROOCODE.md"), "@include mine.md");
    write(&d.user.join("mine.md"), "mine");
    assert_eq!(load(&d), "top\nstyle\ndeep\nbottom\n\n---\n\nmine");
}

#[test]
fn non_include_lines_are_kept() {
    let d = dirs();
    write(
        &d.root.join("ROOCODE.md"),
        "use `@include x` syntax\n@includes.md\n@include\n",
    );
    assert_eq!(load(&d), "use `@include x` syntax\n@includes.md\n@include");
}

#[test]
fn cycle_becomes_a_visible_comment() {
    let d = dirs();
    write(&d.root.join("ROOCODE.md"), "a\n@include b.md\n");
    write(
        &d.root.join("b.md"),
        "b\n@include ROOCODE.md\n@include b.md\n",
    );
    assert_eq!(
        load(&d),
        "a\nb\n<!-- @include ROOCODE.md: not included: include cycle -->\n\
         <!-- @include b.md: not included: include cycle -->"
    );
}

#[test]
fn depth_limit_stops_nesting() {
    let d = dirs();
    write(&d.root.join("ROOCODE.md"), "@include 1.md\n");
    for i in 1..=6 {
        write(
            &d.root.join(format!("{i}.md")),
            &format!("level {i}\n@include {}.md\n", i + 1),
        );
    }
    write(&d.root.join("7.md"), "level 7\n");
    let text = load(&d);
    assert!(text.contains("level 5\n"), "{text}");
    assert!(!text.contains("level 6"), "{text}");
    assert!(
        text.ends_with("<!-- @include 6.md: not included: include depth limit (5) reached -->"),
        "{text}"
    );
}

#[test]
fn missing_include_is_reported_not_fatal() {
    let d = dirs();
    write(
        &d.root.join("ROOCODE.md"),
        "before\n@include nope.md\nafter",
    );
    let text = load(&d);
    assert!(
        text.starts_with("before\n<!-- @include nope.md: not included: file not found ("),
        "{text}"
    );
    assert!(text.ends_with("-->\nafter"), "{text}");
}

#[test]
fn large_files_are_cut_with_a_note() {
    let d = dirs();
    let big = "é".repeat(MAX_FILE_BYTES); // two bytes each: twice the cap
    write(&d.root.join("ROOCODE.md"), &big);
    let text = load(&d);
    assert!(text.starts_with("éé"));
    assert!(!text.contains('\u{FFFD}'));
    assert!(
        text.ends_with(&format!(
            "truncated: only the first 64 KB of {} bytes are included -->",
            big.len()
        )),
        "{}",
        &text[text.len() - 200..]
    );
}

#[test]
fn unreadable_top_level_file_is_an_error() {
    let d = dirs();
    std::fs::create_dir_all(d.user.join("ROOCODE.md")).unwrap();
    let err = load_instructions(&d.root, &d.user).unwrap_err();
    assert!(
        err.to_string().contains("cannot read instruction file"),
        "{err}"
    );
}

#[test]
fn system_reminder_wraps_and_states_precedence() {
    let text = system_reminder("Use pnpm.\n");
    assert!(text.starts_with("<system-reminder>\n"));
    assert!(text.ends_with("\nUse pnpm.\n</system-reminder>"));
    assert!(text.contains("take precedence over your default behaviour"));
}
