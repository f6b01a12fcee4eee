//! What the MCP tests share: the tests' real MCP server (`mcp-fixture`, from the tests
//! crate) started as a stdio server.

use std::path::PathBuf;

use super::config::Launch;

/// The `mcp-fixture` binary beside this test's (built by `cargo build --workspace
/// --bins`, as the README's test command does first).
pub fn fixture_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let bin = dir.join("mcp-fixture");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace --bins` first",
        bin.display()
    );
    bin
}

/// The fixture on stdio, given `args`.
pub fn fixture_stdio(args: &[&str]) -> Launch {
    Launch::Stdio {
        command: fixture_binary().display().to_string(),
        args: args.iter().map(|a| (*a).to_string()).collect(),
        env: Default::default(),
        cwd: std::env::temp_dir(),
    }
}
