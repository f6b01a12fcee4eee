//! Text that flows into a command through a pipe: what `echo`, `printf` or `cat` of a
//! here-document print, so a shell or `xargs` reading it can be seen through.

use super::ast::{Command, RedirOp, Word};
use super::parse;

/// A word as the shell would read `text` (so `~` and `$HOME` keep their meaning).
pub fn reparse_word(text: &str) -> Word {
    match parse::parse(text) {
        Ok(script) => match script.items.as_slice() {
            [item] => match item.pipelines.as_slice() {
                [pipeline] => match pipeline.commands.as_slice() {
                    [Command::Simple(simple)] if simple.words.len() == 1 => simple.words[0].clone(),
                    _ => Word::quoted(text),
                },
                _ => Word::quoted(text),
            },
            _ => Word::quoted(text),
        },
        Err(_) => Word::quoted(text),
    }
}

/// The text `echo`/`printf` print (expansions kept as written, so that a shell reading
/// it sees `$HOME` as `$HOME`), or `cat` of a here-document; `None` with substitutions.
pub(super) fn printed_text(command: &Command) -> Option<String> {
    let Command::Simple(simple) = command else {
        return None;
    };
    let (program, args) = simple.words.split_first()?;
    let name = program.literal()?;
    if name == "cat" && args.is_empty() {
        return simple
            .redirects
            .iter()
            .find_map(|r| match (&r.heredoc, r.op) {
                (Some(doc), _) => Some(doc.body.borrow().clone()),
                (None, RedirOp::HereString) => r.target.literal(),
                _ => None,
            });
    }
    if args.iter().any(Word::has_subst) {
        return None;
    }
    let args: Vec<String> = args.iter().map(Word::shell_text).collect();
    match name.as_str() {
        "echo" => Some(
            args.iter()
                .filter(|a| !matches!(a.as_str(), "-n" | "-e" | "-E"))
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "printf" => {
            let (format, mut rest) = args.split_first()?;
            let mut out = String::new();
            let mut pieces = format.split('%').enumerate();
            if let Some((_, first)) = pieces.next() {
                out.push_str(first);
            }
            for (_, piece) in pieces {
                // Every conversion takes the next argument.
                let mut chars = piece.chars();
                chars.next();
                if let Some((arg, tail)) = rest.split_first() {
                    out.push_str(arg);
                    rest = tail;
                }
                out.push_str(chars.as_str());
            }
            for arg in rest {
                out.push(' ');
                out.push_str(arg);
            }
            Some(out.replace("\\n", "\n").replace("\\t", "\t"))
        }
        _ => None,
    }
}
