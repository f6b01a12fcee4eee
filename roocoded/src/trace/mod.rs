//! The flight recorder (issue 16): what each iteration of every agent is made of and
//! how it went, recorded beside the model calls so a session can be traced, explained
//! and replayed after the fact. This module holds the pieces the agent loop records
//! with: a request's size by part ([`parts`]), the bodies it keeps ([`bodies`]) and the
//! scrubbing of secrets out of them ([`scrub`]), the task that writes what it keeps so
//! that recording never holds up a turn ([`writer`]), and the timeline `session.trace`
//! reads back from them ([`timeline`]). The rows live in the store (`model_calls`,
//! `tool_calls`, `trace_bodies`, `trace_parts`) and the event log.

pub mod bodies;
pub mod parts;
pub mod scrub;
pub mod timeline;
pub mod writer;
