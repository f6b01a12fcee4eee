//! Support code for RooCode's end-to-end tests and benchmarks: the scripted mock LLM
//! server ([`mock_llm`]) and a recording HTTP server ([`recorder`]).

pub mod mock_llm;
pub mod recorder;
