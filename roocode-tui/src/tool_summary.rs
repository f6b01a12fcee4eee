//! What a tool call is about, in one line — the argument chosen by
//! [`roocode_client::display`], as `roocode-cli` does — and how long it took.

use std::path::Path;

use serde_json::Value;

use roocode_client::display;

/// The argument that says what a tool call is about (see [`roocode_client::display`]);
/// `cwd` empty means none.
pub fn main_arg(input: &Value, cwd: &str) -> Option<String> {
    display::main_arg(input, Some(Path::new(cwd)))
}

/// `path` relative to `cwd` when it lies under it; `cwd` empty means none.
pub fn relative(path: &str, cwd: &str) -> String {
    display::relative(path, Some(Path::new(cwd)))
}

/// `12 ms`, `1.5 s`, `2 m 05 s`.
pub fn duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} m {:02} s", ms / 60_000, (ms / 1000) % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_relative_to_the_session_directory() {
        let input = json!({"file_path": "/w/p/src/main.rs"});
        assert_eq!(main_arg(&input, "/w/p").as_deref(), Some("src/main.rs"));
        assert_eq!(
            main_arg(&input, "/other").as_deref(),
            Some("/w/p/src/main.rs")
        );
    }

    #[test]
    fn multi_line_commands_show_their_first_line() {
        let input = json!({"command": "cargo test\n--quiet"});
        assert_eq!(main_arg(&input, "").as_deref(), Some("cargo test…"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(12), "12 ms");
        assert_eq!(duration(1500), "1.5 s");
        assert_eq!(duration(125_000), "2 m 05 s");
    }
}
