//! `roocode-cli mcp add`: writes a new server to the file of its scope (local by
//! default) — a stdio server (`add NAME [-e K=V]… -- COMMAND [ARGS…]`) or an http one
//! (`add -t http NAME URL [-H 'K: V']…`). Values are written as given: `${VAR}` is
//! expanded by the daemon when the server starts, never here. A name the file already
//! has is refused (remove it first).

use std::collections::BTreeMap;

use clap::{Args, ValueEnum};

use super::entry::{self, Fields};
use super::files::{Files, Loaded};
use super::{Scope, check_name};
use crate::failure::UsageError;
use crate::output::{err_line, out_line};

/// How a server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio,
    /// Streamable HTTP at a URL.
    Http,
    /// Not supported (refused with what to use instead).
    Sse,
}

/// Arguments of `add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (letters, digits, `_`, `-`): tools are named `mcp__NAME__TOOL`.
    pub name: String,
    /// stdio: the command and its arguments, after `--` (so that their options are
    /// not taken for ours); http: the URL.
    #[arg(value_name = "COMMAND_OR_URL", required = true, num_args = 1..)]
    pub command_or_url: Vec<String>,
    /// How the server is reached.
    #[arg(long, short = 't', value_enum, default_value = "stdio")]
    pub transport: Transport,
    /// The file to write: local (`.roocode/config.local.yaml`), project (`.mcp.json`)
    /// or user (`config.yaml` of the user directory).
    #[arg(long, short = 's', value_enum, default_value = "local")]
    pub scope: Scope,
    /// An environment variable of a stdio server, `KEY=VALUE` (repeatable); the value
    /// may say `${VAR}`, expanded when the server starts.
    #[arg(long, short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// An HTTP header of an http server, `'Name: value'` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub header: Vec<String>,
}

/// Runs `add`; returns the exit status.
pub fn run(args: AddArgs) -> anyhow::Result<i32> {
    check_name(&args.name)?;
    let fields = fields(&args)?;
    let files = Files::locate()?;
    let file = files.target(args.scope);
    let loaded = file.load()?;
    if loaded.entries.contains_key(&args.name) {
        return Err(anyhow::anyhow!(
            "{} already has an MCP server named `{}`: remove it first with `roocode-cli mcp remove {} --scope {}`, or choose another name",
            file.path.display(),
            args.name,
            args.name,
            args.scope.as_str()
        ));
    }
    let new = file.add(loaded.text(), &args.name, &fields)?;
    file.write(&new)?;
    let kind = match args.transport {
        Transport::Http => "http",
        Transport::Stdio | Transport::Sse => "stdio",
    };
    out_line(&format!(
        "Added {kind} MCP server {} to {} (scope {})",
        args.name,
        file.path.display(),
        args.scope.as_str()
    ));
    if args.scope == Scope::Project {
        out_line(&format!(
            "Project servers start only once approved: roocode-cli mcp approve {}",
            args.name
        ));
    }
    // Best effort: another file's server of the same name may win over this one.
    if let Ok(all) = files.load_all() {
        note_shadowing(&all, &args.name, args.scope);
    }
    Ok(0)
}

/// The fields to write, or what is wrong with the command line.
fn fields(args: &AddArgs) -> Result<Fields, UsageError> {
    match args.transport {
        Transport::Sse => Err(UsageError(
            "the SSE transport is not supported: the official Rust MCP SDK RooCode uses dropped its SSE client (the MCP specification replaced SSE with streamable HTTP); use `--transport http`, most servers serve it too (often at the same address ending in /mcp instead of /sse)".into(),
        )),
        Transport::Stdio => {
            if !args.header.is_empty() {
                return Err(UsageError(
                    "--header is for http servers (`--transport http`); give a stdio server its settings with --env KEY=VALUE".into(),
                ));
            }
            let env = pairs(&args.env, '=', "--env", "KEY=VALUE", env_name)?;
            let (command, rest) = match args.command_or_url.split_first() {
                Some((command, rest)) if !command.is_empty() => (command, rest),
                _ => {
                    return Err(UsageError(format!(
                        "no command for `{}`: give it after `--`, e.g. `roocode-cli mcp add {} -- npx -y some-server`",
                        args.name, args.name
                    )));
                }
            };
            Ok(entry::stdio(command, rest, &env))
        }
        Transport::Http => {
            if !args.env.is_empty() {
                return Err(UsageError(
                    "--env is for stdio servers; give an http server its settings with --header 'Name: value'".into(),
                ));
            }
            let [url] = args.command_or_url.as_slice() else {
                return Err(UsageError(format!(
                    "an http server takes one URL after its name, got {}: `roocode-cli mcp add --transport http {} https://…/mcp`",
                    args.command_or_url.len(),
                    args.name
                )));
            };
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://") || url.starts_with("${")) {
                return Err(UsageError(format!(
                    "`{url}` is not an http:// or https:// URL"
                )));
            }
            let headers = pairs(&args.header, ':', "--header", "'Name: value'", header_name)?;
            Ok(entry::http(url, &headers))
        }
    }
}

/// `KEY<sep>VALUE` pairs, keys checked by `valid`, each key once.
fn pairs(
    given: &[String],
    sep: char,
    flag: &str,
    shape: &str,
    valid: fn(&str) -> bool,
) -> Result<BTreeMap<String, String>, UsageError> {
    let mut out = BTreeMap::new();
    for pair in given {
        let Some((key, value)) = pair.split_once(sep) else {
            return Err(UsageError(format!(
                "{flag} `{pair}` has no `{sep}`: write it as {shape}"
            )));
        };
        let (key, value) = match sep {
            ':' => (key.trim(), value.trim()),
            _ => (key, value),
        };
        if !valid(key) {
            return Err(UsageError(format!(
                "{flag} `{pair}`: `{key}` is not a valid name (write it as {shape})"
            )));
        }
        if out.insert(key.to_string(), value.to_string()).is_some() {
            return Err(UsageError(format!("{flag} gives `{key}` twice: keep one")));
        }
    }
    Ok(out)
}

/// An environment variable's name: a letter or `_`, then letters, digits or `_`.
fn env_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// An HTTP header's name: a token of RFC 9110.
fn header_name(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Says so when a file of a later scope has a server of the same name, which wins.
fn note_shadowing(all: &[Loaded], name: &str, scope: Scope) {
    let later = all.iter().find(|l| {
        l.file.scope.rank() > scope.rank()
            && l.entries.get(name).is_some_and(|held| !held.switch_only)
    });
    if let Some(later) = later {
        err_line(&format!(
            "note: {} (scope {}) also defines `{name}`, and its entry is the one used",
            later.file.path.display(),
            later.file.scope.as_str()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(transport: Transport, rest: &[&str], env: &[&str], header: &[&str]) -> AddArgs {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        AddArgs {
            name: "srv".into(),
            command_or_url: strings(rest),
            transport,
            scope: Scope::Local,
            env: strings(env),
            header: strings(header),
        }
    }

    fn object(fields: Fields) -> serde_json::Value {
        entry::to_object(&fields)
    }

    #[test]
    fn stdio_fields_keep_values_as_written() {
        let a = args(
            Transport::Stdio,
            &["npx", "-y", "s"],
            &["TOKEN=${TOKEN}", "A=b=c"],
            &[],
        );
        assert_eq!(
            object(fields(&a).unwrap()),
            json!({"type": "stdio", "command": "npx", "args": ["-y", "s"], "env": {"TOKEN": "${TOKEN}", "A": "b=c"}})
        );
    }

    #[test]
    fn http_headers_are_split_on_the_first_colon_and_trimmed() {
        let a = args(
            Transport::Http,
            &["https://h/mcp"],
            &[],
            &["Authorization:  Bearer ${KEY}:x ", "X-Id:1"],
        );
        assert_eq!(
            object(fields(&a).unwrap()),
            json!({"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${KEY}:x", "X-Id": "1"}})
        );
    }

    #[test]
    fn mistakes_say_what_to_write() {
        let cases = [
            (
                args(Transport::Sse, &["https://h/sse"], &[], &[]),
                "--transport http",
            ),
            (
                args(Transport::Stdio, &["x"], &["1A=b"], &[]),
                "not a valid name",
            ),
            (args(Transport::Stdio, &["x"], &["A"], &[]), "KEY=VALUE"),
            (
                args(Transport::Stdio, &["x"], &["A=1", "A=2"], &[]),
                "twice",
            ),
            (
                args(Transport::Stdio, &["x"], &[], &["A: b"]),
                "--header is for http",
            ),
            (args(Transport::Stdio, &[""], &[], &[]), "after `--`"),
            (
                args(Transport::Http, &["https://h", "x"], &[], &[]),
                "one URL",
            ),
            (args(Transport::Http, &["ftp://h"], &[], &[]), "not an http"),
            (
                args(Transport::Http, &["https://h"], &["A=b"], &[]),
                "--env is for stdio",
            ),
            (
                args(Transport::Http, &["https://h"], &[], &["No colon"]),
                "'Name: value'",
            ),
            (
                args(Transport::Http, &["https://h"], &[], &["Bad name: v"]),
                "not a valid name",
            ),
        ];
        for (a, expected) in cases {
            let err = fields(&a).unwrap_err().to_string();
            assert!(err.contains(expected), "{a:?}: {err}");
        }
        let a = args(Transport::Http, &["${MCP_URL}"], &[], &[]);
        assert!(fields(&a).is_ok());
    }
}
