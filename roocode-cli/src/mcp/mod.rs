//! `roocode-cli mcp …`: the MCP servers RooCode starts, spelled as Claude Code's
//! `claude mcp …`. `add`, `remove`, `enable` and `disable` edit the config files
//! themselves (no daemon needed): `user` is `config.yaml` of the user directory
//! (`~/.roocode` or `ROOCODE_HOME`), `project` is the project's `.mcp.json` (and, for
//! edits of servers already there, `.roocode/config.yaml`), `local` (the default) is
//! `.roocode/config.local.yaml`. Files are edited as text, so comments, key order and
//! formatting stay as the user wrote them ([`yaml_edit`], [`json_edit`]); every edit is
//! parsed back and checked before the file is replaced. `list`, `get` and `approve`
//! ask the daemon (started if needed), which sees the servers as a session started
//! here would: `list` and `get` show their states (started if they may run) and tools,
//! `approve` approves a project's server as it is written now.

use clap::{Args, Subcommand, ValueEnum};

use crate::failure::UsageError;

mod add;
mod approve;
mod entry;
mod files;
mod get;
mod json_edit;
mod list;
mod remove;
mod switch;
mod yaml_edit;

/// Arguments of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(subcommand)]
    pub cmd: McpCommand,
}

/// What `mcp` does.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Add a server: `add NAME -- COMMAND [ARGS…]` (stdio) or
    /// `add --transport http NAME URL`.
    Add(add::AddArgs),
    /// Remove a server from the file that defines it (`--scope` when several do).
    Remove(NameArgs),
    /// Switch a server back on (default scope local).
    Enable(SwitchArgs),
    /// Switch a server off without removing it (default scope local).
    Disable(SwitchArgs),
    /// List this project's servers: scope, transport, state, tools (started if they
    /// may run, so the states are real).
    List {
        /// Print the answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one server: what it runs, its state and its tools.
    Get {
        /// The server's name.
        name: String,
        /// Print the answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Approve a project server (`.mcp.json`, `.roocode/config.yaml`) as it is written
    /// now: it starts at the next turn; a change to what it runs asks again.
    Approve {
        /// The server's name.
        name: String,
    },
}

/// Where a server is configured; later scopes win (user < project < local).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// `.roocode/config.local.yaml` of the project: yours only, not committed.
    Local,
    /// `.mcp.json` of the project: shared with everyone who clones it (they approve it).
    Project,
    /// `config.yaml` of the user directory: every project of yours.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }

    /// Its place in the merge order: a higher rank wins.
    pub fn rank(self) -> u8 {
        match self {
            Scope::User => 0,
            Scope::Project => 1,
            Scope::Local => 2,
        }
    }
}

/// Arguments of `remove`.
#[derive(Debug, Args)]
pub struct NameArgs {
    /// The server's name.
    pub name: String,
    /// The scope to remove it from; without it, the one scope that defines it.
    #[arg(long, short = 's', value_enum)]
    pub scope: Option<Scope>,
}

/// Arguments of `enable` and `disable`.
#[derive(Debug, Args)]
pub struct SwitchArgs {
    /// The server's name.
    pub name: String,
    /// The file that holds the switch (`local`: for you only).
    #[arg(long, short = 's', value_enum, default_value = "local")]
    pub scope: Scope,
}

/// Runs `mcp …`; returns the exit status.
pub async fn run(args: McpArgs) -> anyhow::Result<i32> {
    match args.cmd {
        McpCommand::Add(a) => add::run(a),
        McpCommand::Remove(a) => remove::run(&a.name, a.scope),
        McpCommand::Enable(a) => switch::run(&a.name, a.scope, /*enable*/ true),
        McpCommand::Disable(a) => switch::run(&a.name, a.scope, /*enable*/ false),
        McpCommand::List { json } => list::run(json).await,
        McpCommand::Get { name, json } => get::run(&name, json).await,
        McpCommand::Approve { name } => approve::run(&name).await,
    }
}

/// Checks a server name: it becomes part of tool names (`mcp__NAME__tool`), so only
/// ASCII letters, digits, `_` and `-`, 1 to 64 of them.
pub fn check_name(name: &str) -> Result<(), UsageError> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        return Ok(());
    }
    Err(UsageError(format!(
        "invalid MCP server name `{name}`: use 1 to 64 ASCII letters, digits, `_` or `-` (the name becomes part of tool names, `mcp__{name}__TOOL`)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: Top,
    }

    #[derive(Debug, Subcommand)]
    enum Top {
        Mcp(McpArgs),
    }

    fn parse(args: &[&str]) -> Result<McpCommand, clap::Error> {
        let argv = ["roocode-cli", "mcp"]
            .into_iter()
            .chain(args.iter().copied());
        Cli::try_parse_from(argv).map(|c| match c.cmd {
            Top::Mcp(m) => m.cmd,
        })
    }

    fn add(args: &[&str]) -> add::AddArgs {
        match parse(&[&["add"], args].concat()).unwrap() {
            McpCommand::Add(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn add_stdio_takes_everything_after_the_name_as_the_command() {
        let a = add(&[
            "files", "-e", "A=1", "--env", "B=${B}", "--", "npx", "-y", "srv",
        ]);
        assert_eq!(a.name, "files");
        assert_eq!(a.env, ["A=1", "B=${B}"]);
        assert_eq!(a.command_or_url, ["npx", "-y", "srv"]);
        assert_eq!(a.transport, add::Transport::Stdio);
        assert_eq!(a.scope, Scope::Local);
        let a = add(&["files", "-s", "user", "--", "npx", "-y", "--scope", "x"]);
        assert_eq!(a.command_or_url, ["npx", "-y", "--scope", "x"]);
        assert_eq!(a.scope, Scope::User);
        assert_eq!(add(&["files", "srv"]).command_or_url, ["srv"]);
        // Without `--`, the command's options are taken for ours: clap says to add it.
        let err = parse(&["add", "files", "npx", "-y"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("-- -y"), "{err}");
    }

    #[test]
    fn add_http_with_headers() {
        let a = add(&[
            "--transport",
            "http",
            "docs",
            "https://example.com/mcp",
            "-H",
            "Authorization: Bearer ${KEY}",
            "--scope",
            "project",
        ]);
        assert_eq!(a.transport, add::Transport::Http);
        assert_eq!(a.command_or_url, ["https://example.com/mcp"]);
        assert_eq!(a.header, ["Authorization: Bearer ${KEY}"]);
        assert_eq!(a.scope, Scope::Project);
        assert_eq!(add(&["-t", "sse", "x", "u"]).transport, add::Transport::Sse);
    }

    #[test]
    fn remove_enable_disable() {
        match parse(&["remove", "files"]).unwrap() {
            McpCommand::Remove(a) => assert!(a.name == "files" && a.scope.is_none()),
            other => panic!("{other:?}"),
        }
        match parse(&["remove", "files", "-s", "project"]).unwrap() {
            McpCommand::Remove(a) => assert_eq!(a.scope, Some(Scope::Project)),
            other => panic!("{other:?}"),
        }
        match parse(&["disable", "files"]).unwrap() {
            McpCommand::Disable(a) => assert!(a.name == "files" && a.scope == Scope::Local),
            other => panic!("{other:?}"),
        }
        match parse(&["enable", "files", "--scope", "user"]).unwrap() {
            McpCommand::Enable(a) => assert_eq!(a.scope, Scope::User),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn list_get_approve() {
        assert!(matches!(
            parse(&["list"]).unwrap(),
            McpCommand::List { json: false }
        ));
        assert!(matches!(
            parse(&["list", "--json"]).unwrap(),
            McpCommand::List { json: true }
        ));
        match parse(&["get", "fixture", "--json"]).unwrap() {
            McpCommand::Get { name, json } => assert!(name == "fixture" && json),
            other => panic!("{other:?}"),
        }
        match parse(&["approve", "fixture"]).unwrap() {
            McpCommand::Approve { name } => assert_eq!(name, "fixture"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_usage_exits_2() {
        for args in [
            &["add", "files"][..],
            &["add"],
            &["add", "-t", "websocket", "x", "u"],
            &["add", "-s", "global", "x", "cmd"],
            &["remove"],
            &["disable"],
            &["enable", "a", "b"],
            &["get"],
            &["approve"],
            &["approve", "a", "b"],
            &["list", "x"],
            &[],
        ] {
            assert_eq!(parse(args).unwrap_err().exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn names_are_what_a_tool_name_can_hold() {
        for good in ["files", "my_server-2", "A", &"x".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "a.b", "ü", "a:b", &"x".repeat(65)] {
            let err = check_name(bad).unwrap_err().to_string();
            assert!(err.contains("mcp__"), "{err}");
        }
    }

    #[test]
    fn scopes_merge_user_then_project_then_local() {
        assert!(Scope::User.rank() < Scope::Project.rank());
        assert!(Scope::Project.rank() < Scope::Local.rank());
    }
}
