//! Finding where things are in a config file's text, for messages that name a line:
//! the YAML parser and `serde_json` give positions only for syntax errors, so the line
//! of the Nth `hooks:` entry (or of a key in it, or of a Claude event key) is found by
//! scanning the text. Correct for the usual block layouts; anything else falls back to
//! the nearest enclosing line found (`hooks:`, or line 1).

use regex::Regex;

/// Byte offsets to 1-based line numbers.
pub(crate) struct TextLines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> TextLines<'a> {
    pub(crate) fn new(text: &'a str) -> TextLines<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        TextLines { text, starts }
    }

    /// The 1-based line holding byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }

    /// The byte offset of the first match of `pattern` at or after `from`.
    pub(crate) fn find(&self, from: usize, pattern: &Regex) -> Option<usize> {
        let rest = self.text.get(from..)?;
        pattern.find(rest).map(|m| from + m.start())
    }

    /// The byte offset of the first `needle` at or after `from`.
    pub(crate) fn find_str(&self, from: usize, needle: &str) -> Option<usize> {
        self.text.get(from..)?.find(needle).map(|i| from + i)
    }
}

/// The lines of a YAML file's top-level `hooks:` list.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct YamlHookLines {
    /// The line of `hooks:` (1 when not found).
    pub(crate) hooks_line: usize,
    /// Per block-style item: its first and last line.
    pub(crate) items: Vec<(usize, usize)>,
    lines: Vec<String>,
}

impl YamlHookLines {
    pub(crate) fn scan(text: &str) -> YamlHookLines {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut scan = YamlHookLines {
            hooks_line: 1,
            items: Vec::new(),
            lines: Vec::new(),
        };
        let Some(at) = lines.iter().position(|l| is_hooks_key(l)) else {
            scan.lines = lines;
            return scan;
        };
        scan.hooks_line = at + 1;
        let mut item_indent = None;
        let mut last_content = at;
        for (i, line) in lines.iter().enumerate().skip(at + 1) {
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indent = line.len() - trimmed.len();
            let is_item = trimmed == "-" || trimmed.starts_with("- ");
            if indent == 0 && !is_item {
                break;
            }
            if is_item && item_indent.is_none_or(|n| n == indent) {
                item_indent = Some(indent);
                if let Some(last) = scan.items.last_mut() {
                    last.1 = last_content + 1;
                }
                scan.items.push((i + 1, i + 1));
            }
            last_content = i;
        }
        if let Some(last) = scan.items.last_mut() {
            last.1 = last_content + 1;
        }
        scan.lines = lines;
        scan
    }

    /// The line of item `index` (the `hooks:` line when items are not laid out one
    /// per `- ` line).
    pub(crate) fn item(&self, index: usize) -> usize {
        self.items.get(index).map_or(self.hooks_line, |r| r.0)
    }

    /// The line of `key:` written on a line of its own (block style) inside item
    /// `index`.
    pub(crate) fn key(&self, index: usize, key: &str) -> Option<usize> {
        let &(start, end) = self.items.get(index)?;
        let pattern = Regex::new(&format!(
            r#"^\s*(?:-\s+)?(?:{k}|"{k}"|'{k}')\s*:"#,
            k = regex::escape(key)
        ))
        .ok()?;
        (start..=end).find(|&n| self.lines.get(n - 1).is_some_and(|l| pattern.is_match(l)))
    }
}

fn is_hooks_key(line: &str) -> bool {
    ["hooks", "\"hooks\"", "'hooks'"].iter().any(|k| {
        line.strip_prefix(k)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })
}

/// A regex finding the JSON object key `key` (`"key"` then `:`).
pub(crate) fn json_key(key: &str) -> Option<Regex> {
    Regex::new(&format!(r#""{}"\s*:"#, regex::escape(key))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_block_items_and_keys() {
        let text = "\
model: x
hooks:
  # a comment
  - event: post_tool_use
    matcher: Write

    action:
      type: command
      command: fmt
  - event: stop
    action: {type: inject, text: hi}
permissions:
  allow: []
";
        let l = YamlHookLines::scan(text);
        assert_eq!(l.hooks_line, 2);
        assert_eq!(l.items, vec![(4, 9), (10, 11)]);
        assert_eq!(l.item(0), 4);
        assert_eq!(l.item(1), 10);
        assert_eq!(l.item(5), 2);
        assert_eq!(l.key(0, "matcher"), Some(5));
        assert_eq!(l.key(0, "command"), Some(9));
        assert_eq!(l.key(0, "event"), Some(4));
        assert_eq!(l.key(1, "action"), Some(11));
        assert_eq!(l.key(1, "text"), None, "inside a flow mapping");
        assert_eq!(l.key(1, "matcher"), None);
        assert_eq!(l.key(7, "event"), None);
    }

    #[test]
    fn dashes_at_column_zero_and_nested_lists() {
        let text = "hooks:\n- event: a\n  action:\n    - nested\n- event: b\nother: 1\n- x\n";
        let l = YamlHookLines::scan(text);
        assert_eq!(l.items, vec![(2, 4), (5, 5)]);
    }

    #[test]
    fn flow_lists_and_missing_hooks() {
        let l = YamlHookLines::scan("a: 1\nhooks: [{event: stop}]\n");
        assert_eq!(l.hooks_line, 2);
        assert_eq!(l.item(0), 2);
        assert_eq!(YamlHookLines::scan("a: 1\n").item(0), 1);
        assert_eq!(
            YamlHookLines::scan("\"hooks\" :\n  - x\n").items,
            vec![(2, 2)]
        );
    }

    #[test]
    fn offsets_to_lines() {
        let t = TextLines::new("a\nbc\n\nd");
        assert_eq!(t.line_of(0), 1);
        assert_eq!(t.line_of(1), 1);
        assert_eq!(t.line_of(2), 2);
        assert_eq!(t.line_of(5), 3);
        assert_eq!(t.line_of(6), 4);
        let key = json_key("Stop").unwrap();
        assert_eq!(t.find(0, &key), None);
        let t = TextLines::new("{\n \"Stop\" : []}");
        assert_eq!(t.find(0, &key).map(|o| t.line_of(o)), Some(2));
    }
}
