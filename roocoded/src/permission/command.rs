//! Shell command lines for the permission layers: the parser and its analysis live in
//! the `roocode-shell` crate (nothing of them is daemon-specific); this module keeps
//! the path `permission::command` the layers use.

pub use roocode_shell::*;
