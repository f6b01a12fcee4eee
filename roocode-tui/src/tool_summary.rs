//! What a tool call is about, in one line: the main argument of its input (the path,
//! the command, the URL, …), paths shown relative to the session's directory. The same
//! choice of argument as `roocode-cli`, so both clients name a call alike.

use std::path::Path;

use serde_json::Value;

use crate::wrap::clip;

/// Longest argument shown after a tool name.
const MAX_ARG: usize = 100;

/// Input fields that name what a tool works on, most telling first.
const MAIN_ARGS: &[&str] = &[
    "file_path",
    "notebook_path",
    "path",
    "command",
    "pattern",
    "url",
    "query",
    "skill",
    "description",
    "prompt",
];
/// Of those, the ones holding paths (shown relative to the working directory).
const PATH_ARGS: &[&str] = &["file_path", "notebook_path", "path"];

/// The argument that says what a tool call is about, on one line.
pub fn main_arg(input: &Value, cwd: &str) -> Option<String> {
    let obj = input.as_object()?;
    let (key, value) = MAIN_ARGS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str).map(|v| (*k, v)))
        .or_else(|| {
            obj.iter()
                .find_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)))
        })?;
    let shown = if PATH_ARGS.contains(&key) {
        relative(value, cwd)
    } else {
        value.to_owned()
    };
    let first = shown.lines().next().unwrap_or_default();
    let mut arg = clip(first, MAX_ARG);
    if first.len() < shown.trim_end().len() && !arg.ends_with('…') {
        arg.push('…');
    }
    (!arg.is_empty()).then_some(arg)
}

/// `path` relative to `cwd` when it lies under it.
pub fn relative(path: &str, cwd: &str) -> String {
    if cwd.is_empty() {
        return path.to_owned();
    }
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_owned(),
    }
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
