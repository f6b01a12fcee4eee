//! The lexer half of the command parser: operators, words (quotes, escapes, expansions)
//! and here-document bodies. Command substitutions recurse into the parser, so a `)`
//! inside `$(case x in a) …;; esac)` or inside quotes never ends them early.

use super::ast::{RedirOp, Seg, Word};
use super::parse::{ParseError, Parser, Result, Stop};

/// A token.
#[derive(Debug, Clone)]
pub enum Tok {
    Word(Word),
    Newline,
    Semi,
    /// `;;`, `;&`, `;;&`.
    DSemi,
    Amp,
    AndIf,
    OrIf,
    /// `|` or `|&`.
    Pipe,
    LParen,
    RParen,
    Redir(RedirOp),
    Eof,
}

/// Characters that end an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

impl Parser {
    fn at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn starts(&self, text: &str) -> bool {
        text.chars().enumerate().all(|(i, c)| self.at(i) == Some(c))
    }

    /// Skips blanks, line continuations and comments; returns the token start.
    pub(super) fn skip_blanks(&mut self) -> usize {
        loop {
            match self.at(0) {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.at(1) == Some('\n') => self.pos += 2,
                Some('#') => {
                    while !matches!(self.at(0), None | Some('\n')) {
                        self.pos += 1;
                    }
                }
                _ => return self.pos,
            }
        }
    }

    pub(super) fn lex_token(&mut self) -> Result<Tok> {
        let Some(c) = self.at(0) else {
            return Ok(Tok::Eof);
        };
        let (tok, len) = match c {
            '\n' => {
                self.pos += 1;
                self.read_heredocs();
                return Ok(Tok::Newline);
            }
            ';' if self.starts(";;&") => (Tok::DSemi, 3),
            ';' if self.starts(";;") || self.starts(";&") => (Tok::DSemi, 2),
            ';' => (Tok::Semi, 1),
            '&' if self.starts("&&") => (Tok::AndIf, 2),
            '&' if self.starts("&>>") => (Tok::Redir(RedirOp::AndAppend), 3),
            '&' if self.starts("&>") => (Tok::Redir(RedirOp::AndOut), 2),
            '&' => (Tok::Amp, 1),
            '|' if self.starts("||") => (Tok::OrIf, 2),
            '|' if self.starts("|&") => (Tok::Pipe, 2),
            '|' => (Tok::Pipe, 1),
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '<' | '>' if self.at(1) == Some('(') => return Ok(Tok::Word(self.lex_word()?)),
            '<' | '>' => return Ok(Tok::Redir(self.redir_op())),
            _ => {
                let word = self.lex_word()?;
                let digits = word
                    .literal()
                    .is_some_and(|l| l.chars().all(|c| c.is_ascii_digit()));
                if digits
                    && word.raw.chars().all(|c| c.is_ascii_digit())
                    && matches!(self.at(0), Some('<' | '>'))
                    && self.at(1) != Some('(')
                {
                    // `2>file`: the descriptor number belongs to the operator.
                    return Ok(Tok::Redir(self.redir_op()));
                }
                return Ok(Tok::Word(word));
            }
        };
        self.pos += len;
        Ok(tok)
    }

    fn redir_op(&mut self) -> RedirOp {
        self.strip_tabs = false;
        let table: [(&str, RedirOp); 11] = [
            ("<<<", RedirOp::HereString),
            ("<<-", RedirOp::HereDoc),
            ("<<", RedirOp::HereDoc),
            ("<&", RedirOp::DupIn),
            ("<>", RedirOp::ReadWrite),
            ("<", RedirOp::In),
            (">>", RedirOp::Append),
            (">|", RedirOp::Clobber),
            (">&", RedirOp::DupOut),
            (">", RedirOp::Out),
            ("", RedirOp::Out),
        ];
        for (text, op) in table {
            if self.starts(text) {
                self.strip_tabs = text == "<<-";
                self.pos += text.chars().count();
                return op;
            }
        }
        RedirOp::Out
    }

    /// Reads the bodies of pending here-documents, starting after a newline.
    fn read_heredocs(&mut self) {
        for (delim, strip, doc) in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.chars.len() {
                let start = self.pos;
                while !matches!(self.at(0), None | Some('\n')) {
                    self.pos += 1;
                }
                let mut line = self.slice(start, self.pos);
                if self.at(0) == Some('\n') {
                    self.pos += 1;
                }
                if strip {
                    line = line.trim_start_matches('\t').to_string();
                }
                if line == delim {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            *doc.body.borrow_mut() = body;
        }
    }

    fn lex_word(&mut self) -> Result<Word> {
        let start = self.pos;
        let mut segs = Vec::new();
        while let Some(c) = self.at(0) {
            if (c == '<' || c == '>') && self.at(1) == Some('(') && segs.is_empty() {
                self.pos += 2;
                let from = self.pos - 2;
                let script = self.script(Stop::RParen)?;
                segs.push(Seg::Subst {
                    script,
                    raw: self.slice(from, self.pos),
                    process: true,
                });
                continue;
            }
            if is_meta(c) {
                break;
            }
            match c {
                '\\' => {
                    self.pos += 1;
                    match self.at(0) {
                        Some('\n') => self.pos += 1,
                        Some(ch) => {
                            self.pos += 1;
                            segs.push(Seg::Char { ch, quoted: true });
                        }
                        None => segs.push(Seg::Char {
                            ch: '\\',
                            quoted: true,
                        }),
                    }
                }
                '\'' => {
                    self.pos += 1;
                    loop {
                        match self.at(0) {
                            None => return Err(ParseError("unterminated single quote".into())),
                            Some('\'') => break,
                            Some(ch) => segs.push(Seg::Char { ch, quoted: true }),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    self.dquote(&mut segs)?;
                }
                '$' => self.dollar(&mut segs, false)?,
                '`' => segs.push(self.backtick()?),
                '~' if segs.is_empty() => {
                    self.pos += 1;
                    let mut user = String::new();
                    while let Some(ch) = self.at(0) {
                        if ch == '/'
                            || is_meta(ch)
                            || !(ch.is_alphanumeric() || "._-+".contains(ch))
                        {
                            break;
                        }
                        user.push(ch);
                        self.pos += 1;
                    }
                    segs.push(Seg::Tilde(user));
                }
                ch => {
                    self.pos += 1;
                    segs.push(Seg::Char { ch, quoted: false });
                }
            }
        }
        Ok(Word {
            segs,
            raw: self.slice(start, self.pos),
        })
    }

    /// The inside of `"…"`, after the opening quote.
    fn dquote(&mut self, segs: &mut Vec<Seg>) -> Result<()> {
        loop {
            match self.at(0) {
                None => return Err(ParseError("unterminated double quote".into())),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.at(1) {
                        Some('\n') => {}
                        Some(ch @ ('$' | '`' | '"' | '\\')) => {
                            segs.push(Seg::Char { ch, quoted: true })
                        }
                        _ => {
                            segs.push(Seg::Char {
                                ch: '\\',
                                quoted: true,
                            });
                            self.pos += 1;
                            continue;
                        }
                    }
                    self.pos += 2;
                }
                Some('$') => self.dollar(segs, true)?,
                Some('`') => segs.push(self.backtick()?),
                Some(ch) => {
                    self.pos += 1;
                    segs.push(Seg::Char { ch, quoted: true });
                }
            }
        }
    }

    /// An expansion starting at `$`.
    fn dollar(&mut self, segs: &mut Vec<Seg>, in_dquote: bool) -> Result<()> {
        let start = self.pos;
        match self.at(1) {
            Some('\'') if !in_dquote => {
                self.pos += 2;
                self.ansi_c(segs)
            }
            Some('"') if !in_dquote => {
                self.pos += 2;
                self.dquote(segs)
            }
            Some('(') if self.at(2) == Some('(') => {
                self.pos += 3;
                let mut depth = 2usize;
                while depth > 0 {
                    match self.at(0) {
                        None => return Err(ParseError("unterminated $((".into())),
                        Some('(') => depth += 1,
                        Some(')') => depth -= 1,
                        _ => {}
                    }
                    self.pos += 1;
                }
                segs.push(Seg::Arith(self.slice(start, self.pos)));
                Ok(())
            }
            Some('(') => {
                self.pos += 2;
                let script = self.script(Stop::RParen)?;
                segs.push(Seg::Subst {
                    script,
                    raw: self.slice(start, self.pos),
                    process: false,
                });
                Ok(())
            }
            Some('{') => {
                self.pos += 2;
                let inner_start = self.pos;
                let mut depth = 1usize;
                while depth > 0 {
                    match self.at(0) {
                        None => return Err(ParseError("unterminated ${".into())),
                        Some('\\') => self.pos += 1,
                        Some('{') => depth += 1,
                        Some('}') => depth -= 1,
                        _ => {}
                    }
                    self.pos += 1;
                }
                let inner = self.slice(inner_start, self.pos - 1);
                segs.push(Seg::Var {
                    name: braced_name(&inner),
                    raw: self.slice(start, self.pos),
                });
                Ok(())
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                self.pos += 1;
                while matches!(self.at(0), Some(c) if c == '_' || c.is_ascii_alphanumeric()) {
                    self.pos += 1;
                }
                let raw = self.slice(start, self.pos);
                segs.push(Seg::Var {
                    name: Some(raw[1..].to_string()),
                    raw,
                });
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                segs.push(Seg::Var {
                    name: Some(c.to_string()),
                    raw: self.slice(start, self.pos),
                });
                Ok(())
            }
            _ => {
                self.pos += 1;
                segs.push(Seg::Char {
                    ch: '$',
                    quoted: in_dquote,
                });
                Ok(())
            }
        }
    }

    /// `$'…'` after the opening quote: C escapes.
    fn ansi_c(&mut self, segs: &mut Vec<Seg>) -> Result<()> {
        loop {
            let Some(c) = self.at(0) else {
                return Err(ParseError("unterminated $'".into()));
            };
            self.pos += 1;
            let ch = match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.at(0) else { continue };
                    self.pos += 1;
                    match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'a' => '\u{7}',
                        'b' => '\u{8}',
                        'e' | 'E' => '\u{1b}',
                        'f' => '\u{c}',
                        'v' => '\u{b}',
                        'x' => self.radix_char(16, 2),
                        'u' => self.radix_char(16, 4),
                        'U' => self.radix_char(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix_char(8, 3)
                        }
                        other => other,
                    }
                }
                other => other,
            };
            segs.push(Seg::Char { ch, quoted: true });
        }
    }

    fn radix_char(&mut self, radix: u32, max: usize) -> char {
        let mut value = 0u32;
        for _ in 0..max {
            match self.at(0).and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    self.pos += 1;
                }
                None => break,
            }
        }
        char::from_u32(value).unwrap_or('\u{fffd}')
    }

    /// `` `…` ``: the text is unescaped and parsed on its own.
    fn backtick(&mut self) -> Result<Seg> {
        let start = self.pos;
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.at(0) {
                None => return Err(ParseError("unterminated backquote".into())),
                Some('`') => break,
                Some('\\') if matches!(self.at(1), Some('`' | '\\' | '$')) => {
                    if let Some(c) = self.at(1) {
                        text.push(c);
                    }
                    self.pos += 2;
                    continue;
                }
                Some(c) => text.push(c),
            }
            self.pos += 1;
        }
        self.pos += 1;
        let mut inner = Parser::new(&text, self.depth + 1);
        let script = inner.script(Stop::Eof)?;
        Ok(Seg::Subst {
            script,
            raw: self.slice(start, self.pos),
            process: false,
        })
    }
}

/// The variable a `${…}` body names, if its value is that variable's value when set
/// (`${HOME}`, `${HOME:-x}`, `${HOME:?}`); `None` for transformations.
fn braced_name(inner: &str) -> Option<String> {
    let name: String = inner
        .chars()
        .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
        .collect();
    if name.is_empty() {
        return None;
    }
    let rest = &inner[name.len()..];
    let keeps_value = rest.is_empty()
        || [":-", ":?", ":=", "-", "?", "="]
            .iter()
            .any(|op| rest.starts_with(op));
    keeps_value.then_some(name)
}
