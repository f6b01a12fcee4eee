//! stub

pub mod config;
pub mod llm;
