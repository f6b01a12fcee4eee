//! File names that could mislead: control characters (a newline makes one name look
//! like two results, an escape sequence can rewrite the terminal) and the Unicode
//! direction overrides that reorder what a reader sees. Glob and Grep show such names
//! escaped with [`escape`]; Write refuses to create them ([`misleading_char`]).

use std::fmt::Write as _;

/// True for characters a file name is never shown with as they are.
fn misleading(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `name` with each misleading character written as an escape (`\n`, `\t`, `\r`,
/// `\x1b`, `\u{202e}`); other names unchanged.
pub fn escape(name: &str) -> String {
    if !name.chars().any(misleading) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if misleading(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if misleading(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The first misleading character of `path`, escaped for a message, if it has one.
pub fn misleading_char(path: &str) -> Option<String> {
    path.chars()
        .find(|&c| misleading(c))
        .map(|c| escape(&c.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_unchanged() {
        for name in ["src/main.rs", "ünïcödé/файл.txt", "a b\\c", "日本語.md"] {
            assert_eq!(escape(name), name);
            assert_eq!(misleading_char(name), None);
        }
    }

    #[test]
    fn control_and_direction_characters_are_escaped() {
        assert_eq!(escape("a\nb.rs"), "a\\nb.rs");
        assert_eq!(escape("x\r\ty"), "x\\r\\ty");
        assert_eq!(escape("\u{1b}[31mred"), "\\x1b[31mred");
        assert_eq!(escape("del\u{7f}"), "del\\x7f");
        assert_eq!(escape("c1\u{9b}"), "c1\\x9b");
        assert_eq!(escape("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(misleading_char("ok/na\nme"), Some("\\n".to_string()));
        assert_eq!(misleading_char("\u{2066}x"), Some("\\u{2066}".to_string()));
    }
}
