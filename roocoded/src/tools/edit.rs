//! The `Edit` tool: exact string replacement in a file the agent has read — one unique
//! occurrence, or every occurrence with `replace_all`. Line endings (CRLF files stay
//! CRLF) and the presence of a final newline are preserved. Failures say exactly what
//! to change, including a hint when the text exists with different whitespace.

use std::fmt::Write as _;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use super::checkpoint::Checkpoints;
use super::output::truncate_chars;
use super::redact::check_markers;
use super::write::{Target, checkpoint_failed, require_fresh_read, unified_diff, write_target};
use super::{
    Effect, FileState, PermissionTarget, Spec, ToolCategory, ToolContext, ToolError, ToolOutput,
    TypedTool, run_blocking,
};

/// Most line ranges listed in a message.
const MAX_LISTED_RANGES: usize = 20;
/// Longest whitespace-insensitive match quoted back to the model.
const MAX_HINT_CHARS: usize = 1500;

const DESCRIPTION: &str = "\
Edits a file by exact string replacement: old_string is replaced by new_string.

Usage:
- You must Read the file in this conversation before editing it, and it must not have \
changed on disk since; otherwise the edit fails and you must Read it again.
- old_string must match the file exactly, character for character, including \
indentation (tabs vs spaces) and blank lines. Copy it from the Read output WITHOUT the \
line-number prefix: everything after the tab that follows the line number is file content.
- old_string must be unique in the file: include enough surrounding lines to make it so. \
If it occurs more than once the edit fails, listing where; add context, or set \
replace_all to true to change every occurrence (useful for renaming a variable).
- new_string must differ from old_string. It replaces the text exactly; keep the \
file's indentation style.
- Line endings are kept: in a file with CRLF line endings, write plain newlines and they \
become CRLF.
- Prefer Edit over Write for changing existing files. Make several small edits rather \
than one huge one. Never create files (documentation or others) the user did not ask for.
- Every edit is checkpointed so the user can rewind it.";

/// The built-in `Edit` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The file to edit: absolute, or relative to the working directory
    pub file_path: String,
    /// The exact text to replace (unique in the file unless replace_all)
    pub old_string: String,
    /// The text to put in its place (must differ from old_string)
    pub new_string: String,
    /// Replace every occurrence of old_string (default false)
    #[serde(default)]
    pub replace_all: bool,
}

impl TypedTool for EditTool {
    type Args = EditArgs;

    fn spec(&self) -> Spec {
        Spec::new("Edit", DESCRIPTION, Effect::WriteFiles, ToolCategory::File)
    }

    fn target(&self, args: &EditArgs, ctx: &ToolContext) -> PermissionTarget {
        write_target(&args.file_path, ctx)
    }

    fn run<'a>(
        &'a self,
        input: EditArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            if input.old_string.is_empty() {
                return Err(ToolError::InvalidInput(
                    "old_string is empty. Give the exact existing text to replace; to create \
                     a new file, use Write."
                        .to_string(),
                ));
            }
            if input.old_string == input.new_string {
                return Err(ToolError::InvalidInput(
                    "old_string and new_string are identical, so the edit would change \
                     nothing. Give the new text in new_string."
                        .to_string(),
                ));
            }
            let target = Target::resolve(ctx, &input.file_path)?;
            let files = ctx.files.clone();
            let checkpoints = Checkpoints::of(ctx).map_err(checkpoint_failed)?;
            run_blocking(ctx, move |_cancel| {
                edit_file(&target, &input, &files, &checkpoints)
            })
            .await
        }
        .boxed()
    }
}

fn edit_file(
    target: &Target,
    input: &EditArgs,
    files: &FileState,
    checkpoints: &Checkpoints,
) -> Result<ToolOutput, ToolError> {
    let shown = &target.shown;
    let Some((mut file, meta, bytes)) = target.open_existing()? else {
        return Err(ToolError::Failed(format!(
            "File does not exist: {shown}. Check the path (Glob can find files), or use \
             Write to create a new file."
        )));
    };
    require_fresh_read(files, &target.real, shown, "edit")?;
    if bytes.contains(&0) {
        return Err(ToolError::InvalidInput(format!(
            "{shown} is a binary file; Edit only edits text files."
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::InvalidInput(format!(
            "{shown} is not valid UTF-8 text; Edit only edits UTF-8 text files."
        ))
    })?;
    // A redaction marker stands for a secret the model never saw (tools/redact.rs).
    for part in [&input.old_string, &input.new_string] {
        check_markers(part, Some(&text)).map_err(ToolError::InvalidInput)?;
    }
    let plan = plan_edit(
        &text,
        &input.old_string,
        &input.new_string,
        input.replace_all,
    )
    .map_err(|failure| ToolError::NoMatch(failure.message(shown)))?;
    target.save_checkpoint(checkpoints, Some((&meta, text.clone().into_bytes())))?;
    target.replace_content(&mut file, plan.text.as_bytes())?;
    target.record(files, &file)?;
    let occurrences = if plan.ranges.len() == 1 {
        "1 occurrence".to_string()
    } else {
        format!("{} occurrences", plan.ranges.len())
    };
    let message = format!(
        "Edited {shown}: replaced {occurrences} ({}).",
        describe_ranges(&plan.ranges)
    );
    let diff = unified_diff(&text, &plan.text, &target.label);
    Ok(ToolOutput::text(message).with_diff(diff))
}

/// The result of applying an edit in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditPlan {
    /// The new content of the file.
    pub text: String,
    /// 1-based inclusive line ranges of the replacements, in the new content.
    pub ranges: Vec<(usize, usize)>,
}

/// Why an edit cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EditFailure {
    NotFound {
        /// Lines (1-based, inclusive) and text of a passage equal to old_string except
        /// for whitespace.
        near: Option<(usize, usize, String)>,
        /// old_string looks like it kept Read's line-number prefixes.
        has_line_numbers: bool,
    },
    NotUnique {
        count: usize,
        /// 1-based first lines of the occurrences.
        lines: Vec<usize>,
    },
}

impl EditFailure {
    /// The message for the model; `shown` is the file's path as shown to it.
    pub(crate) fn message(&self, shown: &str) -> String {
        match self {
            Self::NotUnique { count, lines } => {
                let ranges: Vec<(usize, usize)> = lines.iter().map(|&l| (l, l)).collect();
                format!(
                    "old_string occurs {count} times in {shown} ({}); give more surrounding \
                     context to make it unique, or set replace_all to true to replace every \
                     occurrence.",
                    describe_ranges(&ranges)
                )
            }
            Self::NotFound {
                near,
                has_line_numbers,
            } => {
                let mut message = format!(
                    "old_string was not found in {shown}. It must match the file exactly, \
                     including whitespace and indentation; Read the file again and copy the \
                     text from it."
                );
                if *has_line_numbers {
                    message.push_str(
                        "\nold_string seems to include the line-number prefixes of the Read \
                         output (a number and a tab at the start of each line); leave them out.",
                    );
                }
                if let Some((first, last, passage)) = near {
                    let lines = describe_ranges(&[(*first, *last)]);
                    let _ = write!(
                        message,
                        "\nA passage that differs from old_string only in whitespace is at \
                         {lines}:\n{}\nIf that is the text you mean, use it exactly as \
                         old_string.",
                        truncate_chars(passage, MAX_HINT_CHARS)
                    );
                }
                message
            }
        }
    }
}

/// Apply the edit to `text` in memory.
pub(crate) fn plan_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<EditPlan, EditFailure> {
    let crlf = is_crlf(text);
    // The model sees lines without their CR (Read strips it), so in a CRLF file its
    // newlines stand for CRLF. A mixed file may still match the text as given.
    let (old, new) = if crlf && !old.contains("\r\n") {
        let converted = to_crlf(old);
        if text.contains(&converted) {
            (converted, to_crlf(new))
        } else {
            (old.to_string(), new.to_string())
        }
    } else {
        (old.to_string(), new.to_string())
    };
    let starts: Vec<usize> = text.match_indices(&old).map(|(i, _)| i).collect();
    if starts.is_empty() {
        return Err(EditFailure::NotFound {
            near: whitespace_insensitive_match(text, &old),
            has_line_numbers: has_line_number_prefixes(&old),
        });
    }
    if starts.len() > 1 && !replace_all {
        return Err(EditFailure::NotUnique {
            count: starts.len(),
            lines: starts.iter().map(|&i| line_of(text, i)).collect(),
        });
    }
    let new_body_lines = new.trim_end_matches(['\n', '\r']).matches('\n').count();
    let mut out = String::with_capacity(text.len() + starts.len() * new.len());
    let mut ranges = Vec::with_capacity(starts.len());
    let mut copied = 0;
    let mut line = 1;
    for start in starts {
        let before = &text[copied..start];
        line += before.matches('\n').count();
        out.push_str(before);
        ranges.push((line, line + new_body_lines));
        out.push_str(&new);
        line += new.matches('\n').count();
        copied = start + old.len();
    }
    out.push_str(&text[copied..]);
    // Keep the final newline a file had (models often drop it from new_string).
    if text.ends_with('\n') && !out.is_empty() && !out.ends_with('\n') {
        out.push_str(if crlf { "\r\n" } else { "\n" });
    }
    Ok(EditPlan { text: out, ranges })
}

/// True if most line breaks of `text` are CRLF.
fn is_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && crlf * 2 >= text.matches('\n').count()
}

/// `s` with every line break as CRLF.
fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// 1-based line number of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// `line 3`, `lines 3-5`, `lines 3, 10-11, 17`.
fn describe_ranges(ranges: &[(usize, usize)]) -> String {
    let mut parts: Vec<String> = ranges
        .iter()
        .take(MAX_LISTED_RANGES)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if ranges.len() > MAX_LISTED_RANGES {
        parts.push("…".to_string());
    }
    let single = ranges.len() == 1 && ranges[0].0 == ranges[0].1;
    let word = if single { "line" } else { "lines" };
    format!("{word} {}", parts.join(", "))
}

/// A line without any whitespace.
fn squeeze(line: &str) -> String {
    line.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The first passage of `text` equal to `old` when all whitespace is ignored, line by
/// line: a one-line `old` may be part of a line; a longer one must end its first line,
/// fill the middle lines and start its last line. Blank lines around `old` are ignored.
fn whitespace_insensitive_match(text: &str, old: &str) -> Option<(usize, usize, String)> {
    let mut wanted: Vec<String> = old.lines().map(squeeze).collect();
    while wanted.last().is_some_and(String::is_empty) {
        wanted.pop();
    }
    let skip = wanted.iter().take_while(|l| l.is_empty()).count();
    wanted.drain(..skip);
    let n = wanted.len();
    if n == 0 {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let squeezed: Vec<String> = lines.iter().map(|l| squeeze(l)).collect();
    if squeezed.len() < n {
        return None;
    }
    (0..=squeezed.len() - n)
        .find(|&start| {
            let window = &squeezed[start..start + n];
            if n == 1 {
                return window[0].contains(&wanted[0]);
            }
            window[0].ends_with(&wanted[0])
                && window[n - 1].starts_with(&wanted[n - 1])
                && window[1..n - 1] == wanted[1..n - 1]
        })
        .map(|start| (start + 1, start + n, lines[start..start + n].join("\n")))
}

/// True if every non-blank line of `s` starts like a Read output line: optional
/// spaces, digits, a tab.
fn has_line_number_prefixes(s: &str) -> bool {
    let mut any = false;
    for line in s.lines().filter(|l| !l.trim().is_empty()) {
        let rest = line.trim_start_matches(' ');
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || !rest[digits..].starts_with('\t') {
            return false;
        }
        any = true;
    }
    any
}

#[cfg(test)]
mod tests;
