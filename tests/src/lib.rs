//! Support code for RooCode's end-to-end tests and benchmarks: the scripted mock LLM
//! server ([`mock_llm`]), a recording HTTP server ([`recorder`]) and a real MCP server
//! ([`mcp_fixture`]).

pub mod mcp_fixture;
pub mod mcp_many;
pub mod mock_llm;
pub mod recorder;
