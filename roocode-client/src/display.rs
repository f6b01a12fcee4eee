//! How clients name a tool call on one line (`● Read src/a.rs`): the main argument of
//! its input — the path, the command, the URL… — with paths shown relative to the
//! session's directory. Shared so that every client names a call alike.

use std::path::Path;

use serde_json::Value;

/// Longest argument shown after a tool name.
pub const MAX_ARG: usize = 100;

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

/// The argument that says what a tool call is about, on one line (first line of a
/// multi-line value, with `…`), at most [`MAX_ARG`] characters.
pub fn main_arg(input: &Value, cwd: Option<&Path>) -> Option<String> {
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

/// `path` relative to `cwd` when it lies under it (`.` for `cwd` itself).
pub fn relative(path: &str, cwd: Option<&Path>) -> String {
    let Some(cwd) = cwd.filter(|c| !c.as_os_str().is_empty()) else {
        return path.to_owned();
    };
    match Path::new(path).strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_owned(),
    }
}

/// `s` cut to at most `max` characters, with `…` when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_relative_to_the_session_directory() {
        let input = json!({"file_path": "/w/p/src/main.rs"});
        let p = Some(Path::new("/w/p"));
        assert_eq!(main_arg(&input, p).as_deref(), Some("src/main.rs"));
        assert_eq!(
            main_arg(&input, Some(Path::new("/other"))).as_deref(),
            Some("/w/p/src/main.rs")
        );
        assert_eq!(relative("/w/p", p), ".");
    }

    #[test]
    fn the_most_telling_field_wins_and_multi_line_values_are_cut() {
        let input = json!({"description": "d", "command": "cargo test\n--quiet"});
        assert_eq!(main_arg(&input, None).as_deref(), Some("cargo test…"));
        assert_eq!(main_arg(&json!({"x": 1}), None), None);
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
