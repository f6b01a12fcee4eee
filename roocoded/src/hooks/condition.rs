//! The `if:` condition of a hook: a small expression over the event's fields, parsed
//! (and its regexes compiled) once when the config is loaded.
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! or      := and ("||" and)*
//! and     := compare ("&&" compare)*
//! compare := unary (("==" | "!=" | "=~") unary)?
//! unary   := "!" unary | "(" or ")" | field | string
//! field   := [a-z_][a-z0-9_.]*          e.g. tool, file_path, tool_input.file_path
//! string  := '"' ... '"'                \" and \\ are escapes; any other \x stays as is
//! ```
//!
//! So `!` binds tighter than a comparison, which binds tighter than `&&`, then `||`.
//! A comparison compares a field or a string with a field or a string (`=~`: with a
//! string literal, the regex, searched anywhere in the value: anchor it with `^...$`).
//! Where a condition is expected, a bare field is true when it is present, not empty and
//! not `false`; a missing field compares as the empty string. Comparing a condition
//! (`!tool == "Bash"`, `(a) == "b"`) or using a bare string as one is a parse error, as
//! are chained comparisons. Errors carry the 1-based column in the expression.

use std::collections::BTreeMap;
use std::fmt;

use regex::Regex;

/// How deeply `(` and `!` may nest.
const MAX_DEPTH: usize = 64;

/// Why an expression does not parse: `column` is 1-based, in characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ConditionError {
    pub column: usize,
    pub message: String,
}

/// A parsed condition, ready to evaluate.
#[derive(Debug, Clone)]
pub struct Condition {
    source: String,
    expr: Expr,
}

impl Condition {
    /// Parses `source`; every regex in it is compiled here.
    pub fn parse(source: &str) -> Result<Condition, ConditionError> {
        let tokens = lex(source)?;
        let mut parser = Parser {
            tokens,
            at: 0,
            end_column: source.chars().count() + 1,
            depth: 0,
        };
        if parser.tokens.is_empty() {
            return Err(err(1, "the condition is empty"));
        }
        let expr = parser.or()?;
        if let Some(t) = parser.tokens.get(parser.at) {
            return Err(err(
                t.column,
                format!("unexpected {} (expected && or || or the end)", t.kind),
            ));
        }
        Ok(Condition {
            source: source.to_string(),
            expr,
        })
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates it over the event's flat fields (see `HookInput::fields`).
    pub fn eval(&self, fields: &BTreeMap<String, String>) -> bool {
        self.expr.eval(fields)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[derive(Debug, Clone)]
enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Truthy(String),
    Equal {
        left: Operand,
        right: Operand,
        negated: bool,
    },
    Matches {
        left: Operand,
        regex: Regex,
    },
}

#[derive(Debug, Clone)]
enum Operand {
    Field(String),
    Literal(String),
}

impl Operand {
    fn value<'a>(&'a self, fields: &'a BTreeMap<String, String>) -> &'a str {
        match self {
            Operand::Field(name) => fields.get(name).map_or("", String::as_str),
            Operand::Literal(text) => text,
        }
    }
}

impl Expr {
    fn eval(&self, fields: &BTreeMap<String, String>) -> bool {
        match self {
            Expr::Or(a, b) => a.eval(fields) || b.eval(fields),
            Expr::And(a, b) => a.eval(fields) && b.eval(fields),
            Expr::Not(a) => !a.eval(fields),
            Expr::Truthy(name) => fields
                .get(name)
                .is_some_and(|v| !v.is_empty() && v != "false"),
            Expr::Equal {
                left,
                right,
                negated,
            } => (left.value(fields) == right.value(fields)) != *negated,
            Expr::Matches { left, regex } => regex.is_match(left.value(fields)),
        }
    }
}

fn err(column: usize, message: impl Into<String>) -> ConditionError {
    ConditionError {
        column,
        message: message.into(),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Eq,
    Ne,
    Match,
    Str(String),
    Ident(String),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::LParen => f.write_str("`(`"),
            Kind::RParen => f.write_str("`)`"),
            Kind::Not => f.write_str("`!`"),
            Kind::And => f.write_str("`&&`"),
            Kind::Or => f.write_str("`||`"),
            Kind::Eq => f.write_str("`==`"),
            Kind::Ne => f.write_str("`!=`"),
            Kind::Match => f.write_str("`=~`"),
            Kind::Str(s) => write!(f, "string \"{s}\""),
            Kind::Ident(s) => write!(f, "field `{s}`"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    column: usize,
}

fn lex(source: &str) -> Result<Vec<Token>, ConditionError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let column = i + 1;
        let next = chars.get(i + 1).copied();
        let (kind, len) = match (c, next) {
            (c, _) if c.is_whitespace() => {
                i += 1;
                continue;
            }
            ('(', _) => (Kind::LParen, 1),
            (')', _) => (Kind::RParen, 1),
            ('&', Some('&')) => (Kind::And, 2),
            ('|', Some('|')) => (Kind::Or, 2),
            ('=', Some('=')) => (Kind::Eq, 2),
            ('=', Some('~')) => (Kind::Match, 2),
            ('!', Some('=')) => (Kind::Ne, 2),
            ('!', _) => (Kind::Not, 1),
            ('&', _) => return Err(err(column, "`&` alone: write `&&`")),
            ('|', _) => return Err(err(column, "`|` alone: write `||`")),
            ('=', _) => return Err(err(column, "`=` alone: write `==` or `=~`")),
            ('"', _) => {
                let (text, len) = lex_string(&chars[i..], column)?;
                (Kind::Str(text), len)
            }
            (c, _) if c.is_ascii_lowercase() || c == '_' => {
                let len = chars[i..]
                    .iter()
                    .take_while(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || **c == '_' || **c == '.'
                    })
                    .count();
                if let Some(&after) = chars.get(i + len)
                    && after.is_ascii_uppercase()
                {
                    return Err(err(
                        i + len + 1,
                        "field names are lower case (`file_path`, `tool_input.command`)",
                    ));
                }
                (Kind::Ident(chars[i..i + len].iter().collect()), len)
            }
            (c, _) if c.is_ascii_uppercase() => {
                return Err(err(
                    column,
                    "field names are lower case (`tool`, `file_path`); a value such as Write goes in double quotes",
                ));
            }
            (c, _) => return Err(err(column, format!("unexpected character `{c}`"))),
        };
        tokens.push(Token { kind, column });
        i += len;
    }
    Ok(tokens)
}

/// A string literal starting at `chars[0] == '"'`: its text and its length in chars.
fn lex_string(chars: &[char], column: usize) -> Result<(String, usize), ConditionError> {
    let mut text = String::new();
    let mut i = 1;
    loop {
        match (chars.get(i), chars.get(i + 1)) {
            (None, _) => return Err(err(column, "this string is not closed (missing `\"`)")),
            (Some('"'), _) => return Ok((text, i + 1)),
            (Some('\\'), Some(&e @ ('"' | '\\'))) => {
                text.push(e);
                i += 2;
            }
            (Some(&c), _) => {
                text.push(c);
                i += 1;
            }
        }
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Match,
}

impl CmpOp {
    fn of(kind: &Kind) -> Option<CmpOp> {
        match kind {
            Kind::Eq => Some(CmpOp::Eq),
            Kind::Ne => Some(CmpOp::Ne),
            Kind::Match => Some(CmpOp::Match),
            Kind::LParen
            | Kind::RParen
            | Kind::Not
            | Kind::And
            | Kind::Or
            | Kind::Str(_)
            | Kind::Ident(_) => None,
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CmpOp::Eq => "`==`",
            CmpOp::Ne => "`!=`",
            CmpOp::Match => "`=~`",
        })
    }
}

/// What a sub-expression is before it is used: a condition, or a value that becomes
/// one (a field, truthy) or is compared.
enum Node {
    Cond(Expr),
    Value(Operand, usize),
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    end_column: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Kind> {
        self.tokens.get(self.at).map(|t| &t.kind)
    }

    fn column(&self) -> usize {
        self.tokens
            .get(self.at)
            .map_or(self.end_column, |t| t.column)
    }

    fn or(&mut self) -> Result<Expr, ConditionError> {
        let mut left = self.and()?;
        while self.peek() == Some(&Kind::Or) {
            self.at += 1;
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ConditionError> {
        let mut left = self.compare()?;
        while self.peek() == Some(&Kind::And) {
            self.at += 1;
            let right = self.compare()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn compare(&mut self) -> Result<Expr, ConditionError> {
        let left = self.unary()?;
        let Some(op) = self.peek().and_then(CmpOp::of) else {
            return as_condition(left);
        };
        let op_column = self.column();
        self.at += 1;
        let (left, _) = as_operand(left, op, op_column, "left")?;
        let (right, right_column) = as_operand(self.unary()?, op, op_column, "right")?;
        let expr = match (op, right) {
            (CmpOp::Match, Operand::Literal(pattern)) => Expr::Matches {
                left,
                regex: Regex::new(&pattern).map_err(|e| {
                    err(
                        right_column,
                        format!("invalid regex: {}", regex_message(&e)),
                    )
                })?,
            },
            (CmpOp::Match, Operand::Field(_)) => {
                return Err(err(
                    right_column,
                    "the right side of `=~` is the regex: a string in double quotes",
                ));
            }
            (CmpOp::Eq | CmpOp::Ne, right) => Expr::Equal {
                left,
                right,
                negated: op == CmpOp::Ne,
            },
        };
        if self.peek().and_then(CmpOp::of).is_some() {
            return Err(err(
                self.column(),
                "comparisons do not chain: join them with && or ||",
            ));
        }
        Ok(expr)
    }

    fn unary(&mut self) -> Result<Node, ConditionError> {
        let column = self.column();
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return Err(err(
                column,
                "the condition ends too early (expected a field, a string, `!` or `(`)",
            ));
        };
        self.at += 1;
        match token.kind {
            Kind::Ident(name) => Ok(Node::Value(Operand::Field(name), column)),
            Kind::Str(text) => Ok(Node::Value(Operand::Literal(text), column)),
            Kind::Not => {
                let inner = self.nested(Parser::unary)?;
                Ok(Node::Cond(Expr::Not(Box::new(as_condition(inner)?))))
            }
            Kind::LParen => {
                let inner = self.nested(Parser::or)?;
                if self.peek() != Some(&Kind::RParen) {
                    return Err(err(
                        self.column(),
                        format!("expected `)` to close the `(` at column {column}"),
                    ));
                }
                self.at += 1;
                Ok(Node::Cond(inner))
            }
            other => Err(err(
                column,
                format!("unexpected {other} (expected a field, a string, `!` or `(`)"),
            )),
        }
    }

    fn nested<T>(
        &mut self,
        parse: fn(&mut Parser) -> Result<T, ConditionError>,
    ) -> Result<T, ConditionError> {
        if self.depth >= MAX_DEPTH {
            return Err(err(self.column(), "the condition nests too deeply"));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }
}

fn as_condition(node: Node) -> Result<Expr, ConditionError> {
    match node {
        Node::Cond(expr) => Ok(expr),
        Node::Value(Operand::Field(name), _) => Ok(Expr::Truthy(name)),
        Node::Value(Operand::Literal(_), column) => Err(err(
            column,
            "a string alone is not a condition: compare it with a field (`tool == \"Bash\"`)",
        )),
    }
}

fn as_operand(
    node: Node,
    op: CmpOp,
    op_column: usize,
    side: &str,
) -> Result<(Operand, usize), ConditionError> {
    match node {
        Node::Value(operand, column) => Ok((operand, column)),
        Node::Cond(_) => Err(err(
            op_column,
            format!(
                "the {side} side of {op} is a condition, not a field or a string \
                 (`!` binds tighter than {op}: write `!(a == \"b\")` or `a != \"b\"`)"
            ),
        )),
    }
}

/// The one-line gist of a regex error (its `Display` spans several lines).
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map_or_else(|| text.replace('\n', " "), str::to_string)
}

#[cfg(test)]
#[path = "condition_tests.rs"]
mod tests;
