//! The RooCode daemon library: sessions, agent loops, tools and storage.

pub mod permission;
pub mod tools;
