//! Telling a replayed result from its recording. The replay works in another directory
//! under other session ids, so both results are first brought to common names — the
//! recorded project root and the scratch copy both become `<root>`, each recorded
//! agent's id and its replay's the same `<agent N>` — and the order of Glob's and
//! Grep's lines (a walk's order, and Glob's by modification time, which a copy does not
//! keep) does not count. What still differs is a divergence.
//!
//! The same names rewrite the recorded answers before they are served: a path the
//! model wrote under the recorded root points into the scratch copy instead.

use serde_json::Value;

/// Pairs of names that mean the same thing in the recording and in the replay.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// (recorded, replayed, common) triples, longest recorded name first.
    pairs: Vec<(String, String, String)>,
    /// The recorded project root and the scratch copy, for rewriting answers.
    root: Option<(String, String)>,
}

impl Names {
    /// Names for a replay of the project at `recorded_root` in `dir`.
    pub fn new(recorded_root: &str, dir: &str) -> Names {
        let mut names = Names::default();
        names.add(recorded_root, dir, "<root>");
        names.root = Some((recorded_root.to_string(), dir.to_string()));
        names
    }

    /// `recorded` (an id, a path) is `replayed` in the replay.
    pub fn add(&mut self, recorded: &str, replayed: &str, common: &str) {
        if recorded.is_empty() {
            return;
        }
        self.pairs
            .push((recorded.into(), replayed.into(), common.into()));
        self.pairs
            .sort_by_key(|(r, _, _)| std::cmp::Reverse(r.len()));
    }

    /// `text` with every recorded and replayed name made common.
    pub fn common(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (recorded, replayed, common) in &self.pairs {
            out = replace_name(&out, recorded, common);
            if !replayed.is_empty() {
                out = replace_name(&out, replayed, common);
            }
        }
        out
    }

    /// Strings of `value` (a tool call's input) with the recorded root made the
    /// scratch copy's.
    pub fn rewrite_input(&self, value: &mut Value) {
        let Some((from, to)) = &self.root else {
            return;
        };
        match value {
            Value::String(s) => {
                if s.contains(from.as_str()) {
                    *s = replace_name(s, from, to);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.rewrite_input(v)),
            Value::Object(fields) => fields.values_mut().for_each(|v| self.rewrite_input(v)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// `text` with each occurrence of `name` that is a whole name (not followed by another
/// character of a name: `/tmp/p` in `/tmp/p/a` but not in `/tmp/p2`) replaced.
fn replace_name(text: &str, name: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let after = &rest[at + name.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')));
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { name });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether the order of `tool`'s lines is the walk's, not the content's.
fn order_free(tool: &str) -> bool {
    matches!(tool, "Glob" | "Grep")
}

/// The two results, made comparable: common names, trailing spaces gone, and for Glob
/// and Grep the lines sorted.
pub fn comparable(names: &Names, tool: &str, text: &str) -> String {
    let common = names.common(text);
    let mut lines: Vec<&str> = common.lines().map(str::trim_end).collect();
    if order_free(tool) {
        lines.sort_unstable();
    }
    lines.join("\n").trim_end().to_string()
}

/// `text` cut to about `max` characters for a divergence event.
pub fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roots_and_ids_become_common_names() {
        let mut names = Names::new("/tmp/proj", "/tmp/roocode-replay-1");
        names.add("rec-agent", "new-agent", "<agent 1>");
        assert_eq!(
            names.common("/tmp/proj/src/a.rs and /tmp/roocode-replay-1/src/a.rs, agent rec-agent"),
            "<root>/src/a.rs and <root>/src/a.rs, agent <agent 1>"
        );
        assert_eq!(names.common("new-agent"), "<agent 1>");
        // Not a whole name: another directory that starts the same way.
        assert_eq!(names.common("/tmp/proj2/x"), "/tmp/proj2/x");
    }

    #[test]
    fn glob_and_grep_results_compare_without_their_order() {
        let names = Names::new("/r", "/s");
        assert_eq!(
            comparable(&names, "Glob", "/r/b.rs\n/r/a.rs\n"),
            comparable(&names, "Glob", "/s/a.rs\n/s/b.rs")
        );
        assert_ne!(
            comparable(&names, "Read", "1\tb\n2\ta"),
            comparable(&names, "Read", "1\ta\n2\tb")
        );
    }

    #[test]
    fn recorded_inputs_point_into_the_scratch_copy() {
        let names = Names::new("/home/u/proj", "/tmp/replay");
        let mut input = json!({
            "file_path": "/home/u/proj/src/a.rs",
            "command": "cd /home/u/proj && ls /home/u/project",
            "edits": [{"path": "/home/u/proj/b"}],
            "limit": 3,
        });
        names.rewrite_input(&mut input);
        assert_eq!(
            input,
            json!({
                "file_path": "/tmp/replay/src/a.rs",
                "command": "cd /tmp/replay && ls /home/u/project",
                "edits": [{"path": "/tmp/replay/b"}],
                "limit": 3,
            })
        );
    }

    #[test]
    fn excerpts_are_cut() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("ab", 3), "ab");
    }
}
