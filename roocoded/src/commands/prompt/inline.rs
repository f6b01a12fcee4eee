//! What a prompt command's body inlines, and who does it: `` !`cmd` `` spans (the
//! command's output) and `@path` tokens (the file's content), found by [`pieces`] in
//! the file's own text only, and fetched through an [`Inliner`], which applies the
//! permission layers (a refusal is shown, not fatal).
//!
//! - `` !`cmd` ``: `!` at the start or after whitespace, then a backtick span closed on
//!   the same line, not empty;
//! - `@path`: `@` at the start or after whitespace (so `a@b.com` is text), then a
//!   path-like token — it holds a `/`, starts with `~/` or `./`, or has an extension
//!   (`@src/x.rs`, `@README.md`, `@./Makefile`; not `@alice` or `@dataclass`). Trailing
//!   `.`, `,`, `:`, `;`, `!`, `?` and `)` belong to the sentence, not the path;
//! - neither inside fenced code blocks (```` ``` ```` or `~~~`) or inline code spans,
//!   where `@Override` or `` !`x` `` are examples, not requests.

use futures_util::future::BoxFuture;

/// Reads files and runs commands for a prompt command's inlining; each call goes
/// through the caller's permission layers. An `Err` is the reason it was refused or
/// failed, shown to the model in place of the content.
pub trait Inliner: Send + Sync {
    /// The content of `path` (as written after `@`, relative to the session's directory).
    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<String, String>>;
    /// The output of a shell command line.
    fn run<'a>(&'a self, command: &'a str) -> BoxFuture<'a, Result<String, String>>;
}

/// One piece of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// The body's own text (arguments are substituted here).
    Text(&'a str),
    /// `@path`: the path, without the `@`.
    File(&'a str),
    /// `` !`cmd` ``: the command line.
    Run(&'a str),
}

/// Cuts `body` into its text and what it inlines, in order.
pub(crate) fn pieces(body: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut text_start = 0;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start_matches(' ');
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (Some(open), Some(m)) if m == open => fence = None,
            (Some(_), _) => {}
            (None, Some(m)) if line.len() - trimmed.len() <= 3 => fence = Some(m),
            (None, _) => scan_line(body, start, offset, &mut text_start, &mut out),
        }
    }
    if text_start < body.len() {
        out.push(Piece::Text(&body[text_start..]));
    }
    out
}

/// Finds the inlined pieces of `body[start..end]` (one line), pushing the text before
/// each as a [`Piece::Text`] that starts at `text_start`.
fn scan_line<'a>(
    body: &'a str,
    start: usize,
    end: usize,
    text_start: &mut usize,
    out: &mut Vec<Piece<'a>>,
) {
    let line = &body[start..end];
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let after_space = i == 0 || line[..i].ends_with(char::is_whitespace);
        let found: Option<(Piece<'a>, usize)> = if rest.starts_with("!`") && after_space {
            run_span(&body[start + i..end])
        } else if rest.starts_with('`') {
            // an inline code span is text: skip to its end
            let ticks = rest.len() - rest.trim_start_matches('`').len();
            let fence = &rest[..ticks];
            i += match rest[ticks..].find(fence) {
                Some(close) => ticks + close + ticks,
                None => ticks,
            };
            continue;
        } else if rest.starts_with('@') && after_space {
            file_token(&body[start + i..end])
        } else {
            None
        };
        match found {
            Some((piece, len)) => {
                let at = start + i;
                if *text_start < at {
                    out.push(Piece::Text(&body[*text_start..at]));
                }
                out.push(piece);
                i += len;
                *text_start = start + i;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
}

/// `` !`cmd` `` at the start of `s`, and its length.
fn run_span(s: &str) -> Option<(Piece<'_>, usize)> {
    let inner = &s[2..];
    let close = inner.find(['`', '\n'])?;
    let command = inner[..close].trim();
    (inner[close..].starts_with('`') && !command.is_empty())
        .then_some((Piece::Run(command), close + 3))
}

/// `@path` at the start of `s`, and its length.
fn file_token(s: &str) -> Option<(Piece<'_>, usize)> {
    let token = &s[1..];
    let end = token
        .find(|c: char| !(c.is_alphanumeric() || "._/~+-#%=:@".contains(c)))
        .unwrap_or(token.len());
    let path = token[..end].trim_end_matches(['.', ',', ':', ';', '!', '?', ')']);
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !ext.is_empty() && ext.chars().all(char::is_alphanumeric) && !stem.is_empty()
    });
    let path_like =
        path.contains('/') || path.starts_with("~/") || path.starts_with("./") || extension;
    (path_like && !path.starts_with('@')).then_some((Piece::File(path), 1 + path.len()))
}

#[cfg(test)]
mod tests {
    use super::Piece::{File, Run, Text};
    use super::*;

    #[test]
    fn table() {
        #[rustfmt::skip]
        let cases: &[(&str, &[Piece])] = &[
            ("plain text", &[Text("plain text")]),
            ("Review @src/x.rs now", &[Text("Review "), File("src/x.rs"), Text(" now")]),
            ("@README.md.", &[File("README.md"), Text(".")]),
            ("see (@a/b), @c.txt: @./Makefile", &[Text("see (@a/b), "), File("c.txt"), Text(": "), File("./Makefile")]),
            ("(@a/b)", &[Text("(@a/b)")]),
            ("@~/notes.md", &[File("~/notes.md")]),
            ("mail a@b.com or @alice or @dataclass or @ alone or @@x/y", &[Text("mail a@b.com or @alice or @dataclass or @ alone or @@x/y")]),
            ("@.env", &[Text("@.env")]),
            ("@$1 and @${file}", &[Text("@$1 and @${file}")]),
            ("Status: !`git status --short`\nDiff: !`git diff`", &[Text("Status: "), Run("git status --short"), Text("\nDiff: "), Run("git diff")]),
            ("!`a` !` ` !`unclosed\nwow!`x`", &[Run("a"), Text(" !` ` !`unclosed\nwow!`x`")]),
            ("`@src/x.rs` and `` !`cmd` `` stay", &[Text("`@src/x.rs` and `` !`cmd` `` stay")]),
            ("```\n@src/x.rs !`ls`\n```\n@y/z", &[Text("```\n@src/x.rs !`ls`\n```\n"), File("y/z")]),
            ("~~~rust\n@Override\n```\n!`ls`\n~~~\n!`pwd`", &[Text("~~~rust\n@Override\n```\n!`ls`\n~~~\n"), Run("pwd")]),
            ("    ```\n!`ls`", &[Text("    ```\n"), Run("ls")]),
            ("é @ü/ß.md", &[Text("é "), File("ü/ß.md")]),
        ];
        for (body, expected) in cases {
            assert_eq!(&pieces(body), expected, "{body:?}");
        }
    }
}
