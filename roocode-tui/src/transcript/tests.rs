use ratatui::style::Style;
use roocode_protocol::content::ContentBlock;
use serde_json::json;

use super::*;
use crate::wrap::line_text;

fn ctx(width: u16) -> RenderCtx {
    RenderCtx {
        width,
        expand_all: false,
        tick: 0,
    }
}

fn all_lines(t: &mut Transcript, ctx: &RenderCtx) -> Vec<String> {
    (0..t.blocks())
        .flat_map(|i| {
            t.block_lines(i, ctx)
                .iter()
                .map(line_text)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn result(output: &str, is_error: bool, ms: u64, diff: Option<&str>) -> ToolResult {
    ToolResult {
        output: output.into(),
        is_error,
        duration_ms: ms,
        diff: diff.map(str::to_owned),
    }
}

#[test]
fn deltas_build_one_message_and_the_final_message_replaces_them() {
    let mut t = Transcript::default();
    t.text_delta("M", "Hel");
    t.text_delta("M", "lo **world**");
    assert_eq!(t.len(), 1);
    assert_eq!(all_lines(&mut t, &ctx(40)), ["Hello world"]);
    t.assistant_message("M", &[ContentBlock::text("Hello, world")]);
    assert_eq!(all_lines(&mut t, &ctx(40)), ["Hello, world"]);
    assert!(matches!(t.entry(0), Some(Entry::Assistant(a)) if !a.streaming));
}

#[test]
fn a_reset_message_disappears_and_the_retry_starts_afresh() {
    let mut t = Transcript::default();
    t.user("hi");
    t.text_delta("M", "partial answ");
    t.stream_reset("M");
    t.notice("retrying", Style::new());
    t.text_delta("M", "full answer");
    assert_eq!(
        all_lines(&mut t, &ctx(40)),
        ["> hi", "retrying", "", "full answer"]
    );
}

#[test]
fn tool_calls_fold_to_one_line_with_status() {
    let mut t = Transcript::default();
    t.tool_call("C", "Read", &json!({"file_path": "/w/src/main.rs"}), "/w");
    let running = all_lines(&mut t, &ctx(40));
    assert_eq!(running, ["● Read src/main.rs  ⠋"]);
    t.tool_result("C", result("fn main() {}\n", false, 12, None));
    assert_eq!(all_lines(&mut t, &ctx(40)), ["● Read src/main.rs  ✓ 12 ms"]);
    assert!(!t.animating());
}

#[test]
fn long_summaries_are_clipped_to_keep_one_line() {
    let mut t = Transcript::default();
    let cmd = "cargo test --workspace --all-features -- --nocapture --test-threads 1";
    t.tool_call("C", "Bash", &json!({"command": cmd}), "/w");
    t.tool_result("C", result("ok", true, 1500, None));
    let lines = all_lines(&mut t, &ctx(40));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0], "● Bash cargo test --workspace…  ✗ 1.5 s");
}

#[test]
fn expanded_calls_show_input_output_and_diff() {
    let mut t = Transcript::default();
    t.tool_call("C", "Edit", &json!({"file_path": "/w/a.rs"}), "/w");
    t.tool_result(
        "C",
        result("edited a.rs", false, 3, Some("@@ -1 +1 @@\n-old\n+new")),
    );
    let c = RenderCtx {
        expand_all: true,
        ..ctx(40)
    };
    assert_eq!(
        all_lines(&mut t, &c),
        [
            "● Edit a.rs  ✓ 3 ms",
            "  │ file_path: /w/a.rs",
            "  ⎿ edited a.rs",
            "    @@ -1 +1 @@",
            "    -old",
            "    +new"
        ]
    );
    // A click folds this one call again despite the global toggle.
    assert!(t.toggle_tool(0, true));
    assert_eq!(all_lines(&mut t, &c).len(), 1);
}

#[test]
fn a_turn_end_stops_calls_without_results() {
    let mut t = Transcript::default();
    t.tool_call("C", "Bash", &json!({"command": "sleep 100"}), "");
    t.end_turn();
    assert_eq!(all_lines(&mut t, &ctx(40)), ["● Bash sleep 100  ✗ stopped"]);
}

#[test]
fn queued_messages_show_until_delivered() {
    let mut t = Transcript::default();
    t.user("first");
    t.queue("I2", "second");
    t.queue("I2", "second");
    assert_eq!(
        all_lines(&mut t, &ctx(40)),
        ["> first", "", "> second  (queued)"]
    );
    t.deliver("I2");
    t.user("second");
    assert_eq!(all_lines(&mut t, &ctx(40)), ["> first", "", "> second"]);
}

#[test]
fn caches_follow_the_width() {
    let mut t = Transcript::default();
    t.user("one two three four five six");
    assert_eq!(t.block_height(0, &ctx(40)), 1);
    assert_eq!(t.block_height(0, &ctx(12)), 3);
    assert_eq!(t.block_height(0, &ctx(40)), 1);
}

#[test]
fn thinking_is_dimmed_before_the_answer() {
    let mut t = Transcript::default();
    t.thinking_delta("M", "let me think");
    t.text_delta("M", "answer");
    let lines = t.block_lines(0, &ctx(40)).to_vec();
    assert_eq!(line_text(&lines[0]), "✻ let me think");
    assert_eq!(lines[0].spans[0].style, crate::theme::THINKING);
    assert_eq!(line_text(&lines[2]), "answer");
}
