//! Building a prompt command's message: first its own body's `` !`cmd` `` spans and
//! `@path` tokens are inlined (in the order written), then the arguments are
//! substituted into the body's text around them — never into what was inlined, and the
//! arguments are never scanned for `` !` `` or `@`. So an argument (whoever wrote it)
//! cannot run a command or read a file, an inlined file cannot either, and a `$1`
//! inside `` !`git log $1` `` reaches the shell as written (where it is empty), not as
//! the user's text.

use thiserror::Error;

use super::PromptCommand;
use super::inline::{Inliner, Piece, pieces};
use crate::skills::substitute::Substituter;
use crate::skills::{Arguments, Param};

/// The most `` !`cmd` `` and `@path` a command may inline.
pub const MAX_INLINED: usize = 32;

/// The longest message an expansion may build.
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// Why a command could not be expanded at all (a single refused read or run is a note
/// in the text instead).
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ExpandError {
    #[error("the command inlines {0} files and command outputs, more than {MAX_INLINED}: split it")]
    TooManyInlined(usize),
    #[error(
        "the expanded command is {0} bytes, more than {MAX_OUTPUT_BYTES}: inline smaller files"
    )]
    TooLarge(usize),
}

/// The message of `/name args` for `command` (see the module documentation).
pub async fn expand(
    command: &PromptCommand,
    args: &str,
    inliner: &dyn Inliner,
) -> Result<String, ExpandError> {
    expand_body(&command.body, &[], &Arguments::parse(args), inliner).await
}

/// [`expand`] for any body and parameters (a skill's, for one).
pub async fn expand_body(
    body: &str,
    params: &[Param],
    args: &Arguments,
    inliner: &dyn Inliner,
) -> Result<String, ExpandError> {
    let pieces = pieces(body);
    let inlined = pieces
        .iter()
        .filter(|p| !matches!(p, Piece::Text(_)))
        .count();
    if inlined > MAX_INLINED {
        return Err(ExpandError::TooManyInlined(inlined));
    }
    let mut substituter = Substituter::new(params, args);
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(&substituter.apply(text)),
            Piece::File(path) => match inliner.read(path).await {
                Ok(content) => out.push_str(&content),
                Err(reason) => {
                    out.push_str(&format!("[@{path} not inlined: {}]", one_line(&reason)))
                }
            },
            Piece::Run(command) => match inliner.run(command).await {
                Ok(output) => out.push_str(output.trim_end_matches('\n')),
                Err(reason) => {
                    out.push_str(&format!("[!`{command}` not run: {}]", one_line(&reason)))
                }
            },
        }
        if out.len() > MAX_OUTPUT_BYTES {
            return Err(ExpandError::TooLarge(out.len()));
        }
    }
    let out = substituter.finish(out);
    if out.len() > MAX_OUTPUT_BYTES {
        return Err(ExpandError::TooLarge(out.len()));
    }
    Ok(out)
}

fn one_line(reason: &str) -> String {
    crate::frontmatter::values::one_line(reason)
}
