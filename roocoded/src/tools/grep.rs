//! The `Grep` tool: regex search over file contents with ripgrep's engine
//! (`grep-searcher` + `grep-regex`) and the shared gitignore-aware walk. Files that
//! usually hold credentials ([`crate::permission::secrets`]) are not searched; a note
//! says how many were left out.

use std::path::{Path, PathBuf};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use globset::GlobMatcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::output::{BoundedLines, MAX_OUTPUT_CHARS, display_path, truncate_line};
use super::walk::{compile_glob, is_regular_file, names_hidden, walker};
use super::{
    Effect, PermissionTarget, Spec, ToolCategory, ToolContext, ToolError, ToolOutput, TypedTool,
    run_blocking,
};
use crate::permission::sandbox::{self, Purpose, links, names};
use crate::permission::secrets::{LeftOut, SecretFiles};

/// Longest matched or context line shown in full (minified files would flood output).
pub const MAX_LINE_CHARS: usize = 500;

const DESCRIPTION: &str = "\
Searches file contents with a regular expression (ripgrep's engine and syntax, e.g. \
`fn\\s+\\w+`, `log.*Error`, `struct Foo\\b`; escape literal braces: `interface\\{\\}`).

Usage:
- path is a file or directory to search (default: the working directory). Files ignored \
by .gitignore, .ignore or .rooignore, hidden files and binary files are skipped. Files \
that usually hold credentials (.env, *.pem, id_rsa, …) are not searched; a note names \
them, and Read shows one (the user is asked first).
- Filter files with glob (e.g. `*.js`, `*.{ts,tsx}`, `src/**/*.rs`; a glob without `/` \
matches file names at any depth) or type (ripgrep type names such as `rust`, `py`, `js`, \
`ts`, `go`, `java`, `c`, `cpp`, `md`); type is faster than glob for standard languages.
- output_mode: `files_with_matches` (default) lists matching files, one per line; \
`content` shows matching lines as `path:line:text` (context lines as `path-line-text`, \
non-adjacent groups separated by `--`); `count` shows `path:count` per file.
- In content mode, -n shows line numbers (default true) and -A, -B, -C add lines of \
context after, before, or around each match. -i makes the search case-insensitive.
- By default a match is within one line. Set multiline to true to let patterns span \
lines, with `.` matching newlines too (e.g. `struct Foo \\{[\\s\\S]*?\\}`).
- head_limit keeps only the first N lines or entries of the output. Output is capped at \
about 30000 characters; narrow the search with path, glob, type or head_limit.
- Use Grep for searching content instead of running grep or rg with a shell command.";

/// The built-in `Grep` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrepTool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    #[default]
    FilesWithMatches,
    Content,
    Count,
}

// `Option<bool>` rather than `#[serde(default)] bool` where the schema has no default:
// schemars would announce one.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// The regular expression to search for
    pub pattern: String,
    /// File or directory to search (default: the working directory)
    pub path: Option<String>,
    /// Only search files matching this glob, e.g. "*.{ts,tsx}"
    pub glob: Option<String>,
    /// Only search files of this ripgrep type, e.g. "rust", "py"
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// files_with_matches (default), content, or count
    #[serde(default)]
    pub output_mode: OutputMode,
    /// Case-insensitive search
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers in content mode (default true)
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Lines of context after each match (content mode)
    #[serde(rename = "-A")]
    pub after: Option<usize>,
    /// Lines of context before each match (content mode)
    #[serde(rename = "-B")]
    pub before: Option<usize>,
    /// Lines of context before and after each match (content mode)
    #[serde(rename = "-C")]
    pub context: Option<usize>,
    /// Let patterns span lines; `.` matches newlines
    pub multiline: Option<bool>,
    /// Keep only the first N lines/entries of the output (0: no limit)
    pub head_limit: Option<usize>,
}

impl TypedTool for GrepTool {
    type Args = GrepArgs;

    fn spec(&self) -> Spec {
        Spec::new("Grep", DESCRIPTION, Effect::ReadFiles, ToolCategory::File)
    }

    fn is_concurrency_safe(&self, _args: &GrepArgs) -> bool {
        true
    }

    fn target(&self, args: &GrepArgs, ctx: &ToolContext) -> PermissionTarget {
        PermissionTarget::Path {
            path: ctx.resolve(args.path.as_deref().unwrap_or("")),
            write: false,
        }
    }

    fn run<'a>(
        &'a self,
        input: GrepArgs,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        async move {
            let given = ctx.resolve(input.path.as_deref().unwrap_or(""));
            let checked = sandbox::check_beneath(&given, sandbox::Access::Read, &ctx.scope)
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            let cwd = sandbox::real_path(&ctx.scope.cwd).unwrap_or_else(|_| ctx.scope.cwd.clone());
            let search = Search::new(input, checked, given, cwd)?;
            let project = ctx.scope.root.clone();
            run_blocking(ctx, move |cancel| search.run(&cancel, &project))
                .await
                .map(ToolOutput::text)
        }
        .boxed()
    }
}

/// A prepared search: everything checked, ready to walk.
struct Search {
    /// Real path of the file or directory searched.
    root: PathBuf,
    /// The same as the sandbox let it through: files are opened from its directory.
    checked: sandbox::Checked,
    shown: PathBuf,
    cwd: PathBuf,
    matcher: RegexMatcher,
    searcher: Searcher,
    glob: Option<(GlobMatcher, bool)>,
    types: Option<ignore::types::Types>,
    mode: OutputMode,
    line_numbers: bool,
    head_limit: Option<usize>,
    include_hidden: bool,
}

impl Search {
    fn new(
        input: GrepArgs,
        checked: sandbox::Checked,
        shown: PathBuf,
        cwd: PathBuf,
    ) -> Result<Self, ToolError> {
        let multiline = input.multiline.unwrap_or(false);
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(input.case_insensitive.unwrap_or(false))
            .multi_line(true)
            .dot_matches_new_line(multiline)
            .line_terminator((!multiline).then_some(b'\n'))
            .build(&input.pattern)
            .map_err(|e| {
                let mut msg = format!("Invalid regex {:?}: {e}", input.pattern);
                if !multiline && e.to_string().contains("\\n") {
                    msg.push_str("\nSet multiline: true to match across lines.");
                }
                ToolError::InvalidInput(msg)
            })?;
        let content = input.output_mode == OutputMode::Content;
        let before = if content {
            input.before.or(input.context).unwrap_or(0)
        } else {
            0
        };
        let after = if content {
            input.after.or(input.context).unwrap_or(0)
        } else {
            0
        };
        let searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .multi_line(multiline)
            .before_context(before)
            .after_context(after)
            .build();
        let glob = match &input.glob {
            Some(g) => Some((compile_glob(g)?, !g.contains('/'))),
            None => None,
        };
        let types = match &input.file_type {
            Some(name) => Some(file_types(name)?),
            None => None,
        };
        Ok(Self {
            include_hidden: input.glob.as_deref().is_some_and(names_hidden),
            root: checked.real().to_path_buf(),
            checked,
            shown,
            cwd,
            matcher,
            searcher,
            glob,
            types,
            mode: input.output_mode,
            line_numbers: input.line_numbers.unwrap_or(true),
            head_limit: input.head_limit.filter(|&n| n > 0),
        })
    }

    fn glob_allows(&self, path: &Path) -> bool {
        let Some((glob, by_name)) = &self.glob else {
            return true;
        };
        if *by_name {
            path.file_name().is_some_and(|name| glob.is_match(name))
        } else {
            path.strip_prefix(&self.root)
                .is_ok_and(|rel| glob.is_match(rel))
        }
    }

    /// `project` is the project root, where other names of hard links are looked for.
    fn run(mut self, cancel: &CancellationToken, project: &Path) -> Result<String, ToolError> {
        if std::fs::symlink_metadata(&self.root).is_err() {
            return Err(ToolError::Failed(format!(
                "Path does not exist: {}",
                self.shown.display()
            )));
        }
        let mut builder = walker(&self.root, &self.cwd, self.include_hidden);
        if let Some(types) = self.types.take() {
            builder.types(types);
        }
        builder.sort_by_file_name(|a, b| a.cmp(b));
        let beneath = self.checked.open_base().map_err(|e| {
            ToolError::Failed(format!("Cannot search {}: {e}", self.shown.display()))
        })?;
        let mut out = Output::new(self.head_limit);
        let mut binary_skipped = 0usize;
        let context = self.searcher.before_context() > 0 || self.searcher.after_context() > 0;
        let secret_files = SecretFiles::for_daemon_user().with_project(project);
        let mut left_out = LeftOut::default();
        for entry in builder.build() {
            if cancel.is_cancelled() {
                return Err(ToolError::Cancelled);
            }
            let Ok(entry) = entry else { continue };
            if !is_regular_file(&entry) || (entry.depth() > 0 && !self.glob_allows(entry.path())) {
                continue;
            }
            // Opened from the directory the sandbox checked, never by the walked path:
            // a directory swapped for a link meanwhile is refused, not followed.
            let Ok(below) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            let Ok(file) = beneath.open_file(&self.checked.rel_of(below), Purpose::Read) else {
                continue; // unreadable or swapped file: skipped like ripgrep does
            };
            let Ok(meta) = file.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let shown = names::escape(&display_path(entry.path(), &self.cwd));
            if secret_files
                .classify(entry.path(), entry.path(), Some(&meta))
                .is_some()
            {
                left_out.add(shown);
                continue;
            }
            if entry.depth() > 0 && links::is_hard_linked(&meta) {
                // Its other names may be outside the project (sandbox::links).
                out.hard_linked += 1;
                continue;
            }
            let mut sink = FileSink::new(&shown, self.mode, self.line_numbers);
            if self
                .searcher
                .search_file(&self.matcher, &file, &mut sink)
                .is_err()
            {
                continue; // unreadable file: skipped like ripgrep does
            }
            if sink.binary {
                // Only worth saying when the model pointed at that very file: in a
                // directory, binary files are skipped silently (as ripgrep does).
                binary_skipped += usize::from(entry.depth() == 0);
                continue;
            }
            if sink.count == 0 {
                continue;
            }
            let more = match self.mode {
                OutputMode::FilesWithMatches => out.push(&shown),
                OutputMode::Count => out.push(&format!("{shown}:{}", sink.count)),
                OutputMode::Content => {
                    (!context || out.is_empty() || out.push("--"))
                        && sink.lines.iter().all(|line| out.push(line))
                }
            };
            if !more {
                break;
            }
        }
        let mut text = out.finish(binary_skipped);
        if let Some(note) = left_out.note() {
            text.push('\n');
            text.push_str(&note);
        }
        Ok(text)
    }
}

/// The ripgrep file-type matcher selecting `name`.
fn file_types(name: &str) -> Result<ignore::types::Types, ToolError> {
    let mut builder = ignore::types::TypesBuilder::new();
    builder.add_defaults().select(name);
    builder.build().map_err(|e| {
        ToolError::InvalidInput(format!(
            "{e}. Use a ripgrep type name such as rust, py, js, ts, go, java, c, cpp, md, \
             json, yaml, toml, html, css, sh; or use glob instead."
        ))
    })
}

/// Output lines under the head limit and the character cap.
struct Output {
    lines: BoundedLines,
    head_limit: Option<usize>,
    head_hit: bool,
    /// Files left out because they have other names (hard links).
    hard_linked: usize,
}

impl Output {
    fn new(head_limit: Option<usize>) -> Self {
        Self {
            lines: BoundedLines::new(MAX_OUTPUT_CHARS - 200),
            head_limit,
            head_hit: false,
            hard_linked: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Add a line; false when no more lines are wanted.
    fn push(&mut self, line: &str) -> bool {
        if self
            .head_limit
            .is_some_and(|limit| self.lines.len() >= limit)
        {
            self.head_hit = true;
            return false;
        }
        self.lines.push(line)
    }

    fn finish(self, binary_skipped: usize) -> String {
        let linked_note = match self.hard_linked {
            0 => String::new(),
            n => format!(
                "\n({n} file{} with more than one hard link left out: the same file has other \
                 names, possibly outside the project. Read such a file by name to see it; \
                 that asks first.)",
                if n == 1 { "" } else { "s" }
            ),
        };
        if self.lines.is_empty() {
            let text = match binary_skipped {
                0 => "No matches found".to_string(),
                _ => "No matches found (binary file skipped: Grep only searches text)".to_string(),
            };
            return text + &linked_note;
        }
        let capped = self.lines.is_full();
        let limit = self.head_limit;
        let mut text = self.lines.into_string();
        if capped {
            text.push_str(&format!(
                "\n(Output capped at {MAX_OUTPUT_CHARS} characters; more results not shown. \
                 Narrow the search with path, glob, type or head_limit.)"
            ));
        } else if let (true, Some(limit)) = (self.head_hit, limit) {
            text.push_str(&format!(
                "\n(head_limit {limit} reached; more results not shown.)"
            ));
        }
        text + &linked_note
    }
}

/// Collects one file's results, formatted, so a file found to be binary part-way can
/// be dropped whole.
struct FileSink<'p> {
    path: &'p str,
    mode: OutputMode,
    line_numbers: bool,
    /// Matching lines (or matches, for files_with_matches, where the search stops at 1).
    count: u64,
    lines: Vec<String>,
    binary: bool,
}

impl<'p> FileSink<'p> {
    fn new(path: &'p str, mode: OutputMode, line_numbers: bool) -> Self {
        Self {
            path,
            mode,
            line_numbers,
            count: 0,
            lines: Vec::new(),
            binary: false,
        }
    }

    fn line(&mut self, sep: char, number: Option<u64>, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = truncate_line(text.trim_end_matches(['\n', '\r']), MAX_LINE_CHARS);
        let line = match number.filter(|_| self.line_numbers) {
            Some(n) => format!("{}{sep}{n}{sep}{text}", self.path),
            None => format!("{}{sep}{text}", self.path),
        };
        self.lines.push(line);
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        match self.mode {
            OutputMode::FilesWithMatches => {
                self.count = 1;
                return Ok(false);
            }
            OutputMode::Count => self.count += mat.lines().count() as u64,
            OutputMode::Content => {
                let first = mat.line_number();
                for (i, line) in mat.lines().enumerate() {
                    self.count += 1;
                    self.line(':', first.map(|n| n + i as u64), line);
                }
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.line('-', ctx.line_number(), ctx.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.lines.push("--".to_string());
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

#[cfg(test)]
mod tests;
