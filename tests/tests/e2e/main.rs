//! End-to-end tests: the real `roocoded` and `roocode-cli` binaries against the scripted
//! mock LLM server, each test with its own `ROOCODE_HOME` and project directory.
//! Build the binaries first: `cargo build --workspace --bins`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod harness;

mod attach;
mod context;
mod cost;
mod daemon;
mod durability;
mod interactive;
mod llm;
mod long_task;
mod permissions;
mod sandbox;
mod send;
mod tools;
mod tui;
