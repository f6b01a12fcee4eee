//! The collaboration graph: how an orchestrator's work flows between the named
//! sub-agents it dispatches with the `Agent` tool. Pure: no I/O, no clock, no async.
//! The engine keeps a [`GraphState`] (JSON), calls [`Graph::dispatch`] when a dispatch
//! starts and [`Graph::complete`] when a dispatched agent completes, asks the judge when
//! a [`Step`] says so, and shows [`Graph::reminder`] to the orchestrator before each
//! model call. The graph advances only on completions, never at launch, so background
//! work cannot move it early.
//!
//! # The `collaboration:` block
//!
//! In an agent definition's frontmatter or in config; [`parse`] reads the mapping under
//! the key.
//!
//! ```yaml
//! collaboration:
//!   topology: review-loop        # pipeline | review-loop | star (optional when flow is given)
//!   agents: [coder, reviewer]    # agent types; 1 to 50, no duplicates, [A-Za-z0-9_-]+
//!   flow:                        # optional: added to the topology's edges, or the only ones
//!     - "coder -> reviewer: review the change"
//!     - "reviewer -> coder: fix what the review found"
//!     - {from: reviewer, exit: true}     # mapping form: from, to | exit: true, label
//!   max_iterations: 3            # rounds a loop gets (only kept when the graph has a loop)
//!   termination:
//!     any_of:                    # ends when any term holds; all_of: when all of its terms do
//!       - timeout_ms: 600000
//!       - converged: true        # the engine asks a judge; see Step::judge_needed
//!       - result_matches: {agent: reviewer, contains: "APPROVED"}
//!       - stuck: 2               # one agent returned the same result 2 times in a row
//! ```
//!
//! - Topologies expand over `agents` in order: `pipeline [a, b, c]` is a -> b, b -> c,
//!   c exits; `review-loop [a, b]` (exactly two) is a -> b, b -> a, b exits;
//!   `star [hub, s1, s2…]` (two or more) is hub -> si and si -> hub per spoke, hub exits.
//! - A flow item is `"from -> to"` or `"from -> to: label"` (unquoted, YAML reads it as
//!   a one-key mapping; that is accepted too), or `{from, to, label}`, or
//!   `{from, exit: true, label}`. A flow edge equal to a topology edge only gives it its
//!   label; the same flow edge twice is an error.
//! - Terms: `max_iterations: n` (iteration ≥ n), `timeout_ms: n` (n ms since start),
//!   `converged: true`, `stuck: n` (2 to 5), and `result_matches:` with an optional
//!   `agent` (default: the agent whose completion is evaluated) and one or more tests,
//!   all of which must hold on that agent's latest result: `contains` (case-sensitive),
//!   `regex` (compiled when parsed), `score_gte` (the first number within 12 characters
//!   after the word "score", any case, on the same line), `no_changes: true` (its latest
//!   completion reported `changed_files: Some(false)`).
//! - Errors: unknown keys (naming the accepted ones), agents not in `agents` (with the
//!   closest name), bad edge strings, bad regexes, wrong topology sizes, and a graph
//!   with no exit edge and no termination ("the workflow could never end"). Messages
//!   start with the key path (`flow[2]: …`) and read after `file:line: collaboration: `.
//!
//! # Running
//!
//! - [`Graph::start`]: the frontier is every agent no other agent hands work to, in
//!   `agents` order; when all are fed (everything in loops), the first agent.
//! - Loops are the strongly connected components (more than one agent, or one with an
//!   edge to itself), keyed by their sorted names joined with `+`. Following a loop
//!   edge to an agent already in `completed` counts one iteration of that loop, and the
//!   loop's agents leave `completed` (a new round). `iteration` is the largest count.
//!   The cap is [`Graph::effective_max_iterations`]: `max_iterations`, else the smallest
//!   `any_of` `max_iterations` term, else 3. Counting is exact when a loop's agents run
//!   one after another and when a star's spokes all return before the hub runs again; a
//!   spoke returning after the hub already ran again counts in the new round.
//! - [`Graph::dispatch`]: see there; three off-route dispatches in a row end the
//!   workflow Exhausted.
//! - [`Graph::complete`]: the result is always recorded; only an agent on the frontier
//!   advances the graph. After advancing, in this order:
//!   1. a success term holds (`result_matches`, `converged`, or an `all_of` containing
//!      one) and the agent has an exit edge (or no agent has one): Complete;
//!   2. the agent has an exit edge and no hand-off edge: Complete ("every agent on the
//!      route completed" when the frontier is empty);
//!   3. the judge could end it now: `judge_needed`, and the rest is decided by
//!      [`Graph::judged`] with the answer;
//!   4. a give-up term holds (`max_iterations`, `timeout_ms`, `stuck`, or an `all_of` of
//!      only those): Exhausted;
//!   5. the iteration cap is reached: Exhausted, "max_iterations (3) reached";
//!   6. the frontier is empty: Complete, "every agent on the route completed".
//!
//!   So with no termination, a loop ends Exhausted at its cap unless an exit agent with
//!   no hand-off completes; with terms, an exit agent completing while a success term
//!   holds completes it, and the loop otherwise runs to its cap.

mod error;
mod matcher;
mod model;
mod parse;
mod run;
mod scc;
mod state;
mod termination;
mod text;

pub use error::{GraphError, Place};
pub use matcher::Matcher;
pub use model::{DEFAULT_MAX_ITERATIONS, Edge, Graph, MAX_AGENTS, Topology};
pub use parse::parse;
pub use run::{ALL_DONE_REASON, OFF_ROUTE_LIMIT, OFF_ROUTE_REASON};
pub use state::{Completion, Dispatch, GraphState, RESULT_CHARS, RESULTS_KEPT, Status, Step};
pub use termination::{Term, Termination};
pub use text::judge_answer;
