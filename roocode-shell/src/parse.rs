//! A parser for the part of the POSIX/bash shell language that matters to permission
//! checks: quoting (`'…'`, `"…"`, `$'…'`, backslashes, line continuations), expansions
//! (`$X`, `${…}`, `$(…)`, backticks, `<(…)`, `$((…))`), operators (`;`, `&`, `&&`,
//! `||`, `|`, `|&`, newlines), redirections and here-documents, subshells, groups,
//! function definitions, and the reserved words of `if`/`while`/`for`/`case`.
//!
//! It never runs or expands anything. Input it does not understand is an error, and the
//! caller treats a command it cannot parse as one it cannot see through.

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::{Command, HereDoc, Item, Pipeline, RedirOp, Redirect, Script, Seg, Simple, Word};
use super::lex::Tok;

/// Why a command line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Result<T> = std::result::Result<T, ParseError>;

/// Where a script ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Eof,
    /// A `)` (consumed): subshells and `$(…)`.
    RParen,
    /// A `}` in command position (consumed).
    RBrace,
    /// `;;` (consumed) or `esac` (left): one `case` branch.
    CaseItem,
}

/// Parses a whole command line.
pub fn parse(src: &str) -> Result<Script> {
    Parser::new(src, 0).script(Stop::Eof)
}

/// Parser and lexer state over one source text (the lexer is in `lex.rs`).
pub(super) struct Parser {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    /// Nesting depth, shared with parsers of backquoted text.
    pub(super) depth: usize,
    /// Here-documents whose bodies start at the next newline: (delimiter, strip tabs, doc).
    pub(super) pending: Vec<(String, bool, HereDoc)>,
    /// Set by the lexer for `<<-`.
    pub(super) strip_tabs: bool,
    /// End of the last consumed token.
    last_end: usize,
    peeked: Option<(Tok, usize, usize)>,
}

const MAX_DEPTH: usize = 64;

impl Parser {
    pub(super) fn new(src: &str, depth: usize) -> Self {
        Self {
            chars: src.chars().collect(),
            pos: 0,
            depth,
            pending: Vec::new(),
            strip_tabs: false,
            last_end: 0,
            peeked: None,
        }
    }

    pub(super) fn slice(&self, start: usize, end: usize) -> String {
        self.chars[start.min(self.chars.len())..end.min(self.chars.len())]
            .iter()
            .collect()
    }

    fn peek(&mut self) -> Result<&Tok> {
        if self.peeked.is_none() {
            let start = self.skip_blanks();
            let tok = self.lex_token()?;
            let end = self.pos;
            self.peeked = Some((tok, start, end));
        }
        match &self.peeked {
            Some((tok, _, _)) => Ok(tok),
            None => Err(ParseError("internal parser error".into())),
        }
    }

    fn next(&mut self) -> Result<(Tok, usize, usize)> {
        self.peek()?;
        let taken = self
            .peeked
            .take()
            .ok_or_else(|| ParseError("internal parser error".into()))?;
        self.last_end = taken.2;
        Ok(taken)
    }

    fn peek_word_is(&mut self, text: &str) -> Result<bool> {
        Ok(matches!(self.peek()?, Tok::Word(w) if w.is_plain(text)))
    }

    fn skip_newlines(&mut self) -> Result<()> {
        while matches!(self.peek()?, Tok::Newline) {
            self.next()?;
        }
        Ok(())
    }

    /// A list of items up to `stop`.
    pub(super) fn script(&mut self, stop: Stop) -> Result<Script> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError("the command is nested too deeply".into()));
        }
        let mut items = Vec::new();
        loop {
            match self.peek()? {
                Tok::Newline | Tok::Semi => {
                    self.next()?;
                    continue;
                }
                Tok::Eof if stop == Stop::Eof => break,
                Tok::Eof => return Err(ParseError("unexpected end of the command".into())),
                Tok::RParen if stop == Stop::RParen => {
                    self.next()?;
                    break;
                }
                Tok::DSemi if stop == Stop::CaseItem => {
                    self.next()?;
                    break;
                }
                Tok::Word(w) if stop == Stop::RBrace && w.is_plain("}") => {
                    self.next()?;
                    break;
                }
                Tok::Word(w) if stop == Stop::CaseItem && w.is_plain("esac") => break,
                Tok::RParen | Tok::DSemi => {
                    return Err(ParseError("unexpected `)` or `;;`".into()));
                }
                _ => {}
            }
            let pipelines = self.and_or()?;
            let background = matches!(self.peek()?, Tok::Amp);
            if background {
                self.next()?;
            }
            items.push(Item {
                pipelines,
                background,
            });
        }
        self.depth -= 1;
        Ok(Script { items })
    }

    fn and_or(&mut self) -> Result<Vec<Pipeline>> {
        let mut pipelines = vec![self.pipeline()?];
        while matches!(self.peek()?, Tok::AndIf | Tok::OrIf) {
            self.next()?;
            self.skip_newlines()?;
            pipelines.push(self.pipeline()?);
        }
        Ok(pipelines)
    }

    fn pipeline(&mut self) -> Result<Pipeline> {
        while self.peek_word_is("!")? {
            self.next()?;
        }
        let mut commands = vec![self.command()?];
        while matches!(self.peek()?, Tok::Pipe) {
            self.next()?;
            self.skip_newlines()?;
            commands.push(self.command()?);
        }
        Ok(Pipeline { commands })
    }

    fn command(&mut self) -> Result<Command> {
        if matches!(self.peek()?, Tok::LParen) {
            self.next()?;
            let body = self.script(Stop::RParen)?;
            let redirects = self.redirects()?;
            return Ok(Command::Subshell { body, redirects });
        }
        let keyword = match self.peek()? {
            Tok::Word(w) => KEYWORDS.iter().copied().find(|k| w.is_plain(k)),
            _ => None,
        };
        match keyword {
            Some("{") => {
                self.next()?;
                let body = self.script(Stop::RBrace)?;
                let redirects = self.redirects()?;
                Ok(Command::Group { body, redirects })
            }
            Some("if" | "then" | "elif" | "else" | "do" | "while" | "until" | "!" | "time") => {
                self.next()?;
                self.skip_newlines()?;
                self.command()
            }
            Some("fi" | "done" | "esac" | "}") => {
                self.next()?;
                let redirects = self.redirects()?;
                Ok(Command::Simple(Simple {
                    redirects,
                    ..Simple::default()
                }))
            }
            Some("for" | "select") => {
                self.next()?;
                let mut words = Vec::new();
                loop {
                    match self.peek()? {
                        Tok::Word(w) if w.is_plain("do") => break,
                        Tok::Word(_) => {
                            if let (Tok::Word(w), _, _) = self.next()? {
                                words.push(w);
                            }
                        }
                        Tok::LParen => {
                            self.next()?;
                            self.script(Stop::RParen)?;
                        }
                        _ => break,
                    }
                }
                Ok(Command::Compound {
                    words,
                    bodies: Vec::new(),
                })
            }
            Some("case") => self.case(),
            Some("function") => {
                self.next()?;
                let name = match self.next()? {
                    (Tok::Word(w), _, _) => w.shell_text(),
                    _ => return Err(ParseError("`function` without a name".into())),
                };
                if matches!(self.peek()?, Tok::LParen) {
                    self.next()?;
                    self.expect_rparen()?;
                }
                self.function_body(name)
            }
            _ => self.simple(),
        }
    }

    fn function_body(&mut self, name: String) -> Result<Command> {
        self.skip_newlines()?;
        let body = Box::new(self.command()?);
        Ok(Command::Function { name, body })
    }

    fn expect_rparen(&mut self) -> Result<()> {
        match self.next()? {
            (Tok::RParen, _, _) => Ok(()),
            _ => Err(ParseError("expected `)`".into())),
        }
    }

    fn case(&mut self) -> Result<Command> {
        self.next()?;
        let mut words = Vec::new();
        if let (Tok::Word(w), _, _) = self.next()? {
            words.push(w);
        }
        self.skip_newlines()?;
        if !self.peek_word_is("in")? {
            return Err(ParseError("`case` without `in`".into()));
        }
        self.next()?;
        let mut bodies = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_word_is("esac")? {
                self.next()?;
                break;
            }
            if matches!(self.peek()?, Tok::LParen) {
                self.next()?;
            }
            loop {
                match self.next()? {
                    (Tok::Word(w), _, _) => words.push(w),
                    (Tok::Pipe, _, _) => {}
                    (Tok::RParen, _, _) => break,
                    _ => return Err(ParseError("malformed `case` pattern".into())),
                }
            }
            bodies.push(self.script(Stop::CaseItem)?);
        }
        let _ = self.redirects()?;
        Ok(Command::Compound { words, bodies })
    }

    fn redirects(&mut self) -> Result<Vec<Redirect>> {
        let mut out = Vec::new();
        while let Tok::Redir(_) = self.peek()? {
            if let (Tok::Redir(op), _, _) = self.next()? {
                out.push(self.redirect(op)?);
            }
        }
        Ok(out)
    }

    fn redirect(&mut self, op: RedirOp) -> Result<Redirect> {
        let target = match self.next()? {
            (Tok::Word(w), _, _) => w,
            _ => return Err(ParseError("a redirection without a target".into())),
        };
        let heredoc = if op == RedirOp::HereDoc {
            let doc = HereDoc {
                body: Rc::new(RefCell::new(String::new())),
                expand: !target
                    .segs
                    .iter()
                    .any(|s| matches!(s, Seg::Char { quoted: true, .. })),
            };
            self.pending
                .push((target.shell_text(), self.strip_tabs, doc.clone()));
            Some(doc)
        } else {
            None
        };
        Ok(Redirect {
            op,
            target,
            heredoc,
        })
    }

    fn simple(&mut self) -> Result<Command> {
        let mut simple = Simple::default();
        let mut start = None;
        loop {
            match self.peek()? {
                Tok::Word(_) => {
                    let (tok, s, _) = self.next()?;
                    start.get_or_insert(s);
                    let Tok::Word(word) = tok else { continue };
                    if simple.words.is_empty() && is_assignment(&word) {
                        if word.raw.ends_with('=') && matches!(self.peek()?, Tok::LParen) {
                            // An array assignment `a=(x y)`: keep the elements as words.
                            self.next()?;
                            let mut array = word;
                            while let (Tok::Word(w), _, _) = self.next()? {
                                array.segs.extend(w.segs);
                            }
                            simple.assigns.push(array);
                        } else {
                            simple.assigns.push(word);
                        }
                        continue;
                    }
                    let first = simple.words.is_empty() && simple.assigns.is_empty();
                    simple.words.push(word);
                    if first && matches!(self.peek()?, Tok::LParen) {
                        self.next()?;
                        self.expect_rparen()?;
                        let name = simple.words.remove(0).shell_text();
                        return self.function_body(name);
                    }
                }
                Tok::Redir(_) => {
                    let (tok, s, _) = self.next()?;
                    start.get_or_insert(s);
                    let Tok::Redir(op) = tok else { continue };
                    simple.redirects.push(self.redirect(op)?);
                }
                _ => break,
            }
        }
        if let Some(start) = start {
            simple.raw = self.slice(start, self.last_end).trim().to_string();
        } else if !matches!(
            self.peek()?,
            Tok::Newline | Tok::Semi | Tok::Amp | Tok::Eof | Tok::AndIf | Tok::OrIf | Tok::Pipe
        ) && !matches!(self.peek()?, Tok::RParen | Tok::DSemi)
        {
            return Err(ParseError("unexpected token".into()));
        }
        Ok(Command::Simple(simple))
    }
}

const KEYWORDS: [&str; 18] = [
    "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "for", "select",
    "case", "esac", "function", "!", "time",
];

/// `NAME=value` or `NAME+=value` with an unquoted valid name.
fn is_assignment(word: &Word) -> bool {
    let mut name = String::new();
    for seg in &word.segs {
        match seg {
            Seg::Char {
                ch: '=',
                quoted: false,
            } => {
                let name = name.strip_suffix('+').unwrap_or(&name);
                return is_name(name);
            }
            Seg::Char { ch, quoted: false } => name.push(*ch),
            _ => return false,
        }
    }
    false
}

/// A valid shell variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
