//! End-to-end tests: the real `roocoded` and `roocode-cli` binaries against the scripted
//! mock LLM server, each test with its own `ROOCODE_HOME` and project directory.
//! Build the binaries first: `cargo build --workspace --bins`.

// An integration-test crate: clippy.toml's test allowance does not reach its helpers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod harness;

mod agent_definitions;
mod agent_limits;
mod agent_worktree;
mod agents;
mod agents_cli;
mod attach;
mod cli_color;
mod context;
mod context_window;
mod corrupt_db;
mod cost;
mod daemon;
mod durability;
mod flight_recorder;
mod graphs;
mod hook_events;
mod hook_notifications;
mod hooks;
mod hostile_commands;
mod hostile_daemon;
mod hostile_paths;
mod interactive;
mod llm;
mod local_window;
mod long_task;
mod loops;
mod mcp;
mod mcp_cli;
mod mcp_images;
mod mcp_life;
mod mcp_prompts;
mod mcp_status;
mod permissions;
mod prompt_commands;
mod protected;
mod prune;
mod read_only_agents;
mod recovery;
mod replay;
mod rewind;
mod rewind_cli;
mod sandbox;
mod secrets;
mod send;
mod skill_tools;
mod skills;
mod slash_commands;
mod team_cleanup;
mod team_cli;
mod team_coordinator;
mod team_messages;
mod team_tasks;
mod team_tmux;
mod teams;
mod tool_sets;
mod tools;
mod trace_cli;
mod tui;
mod ux;
mod webfetch;
mod workflow;
