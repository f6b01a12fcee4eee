//! The questions of an `AskUserQuestion` call, as `roocode-cli` reads them too
//! (see [`roocode_protocol::question`]).

pub use roocode_protocol::question::{Question, parse};
