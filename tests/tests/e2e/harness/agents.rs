//! What the tests of agents and teams share: picking one agent's requests out of the
//! mock's (by the marker in its first user message), the tools a request offered, and a
//! world whose team leads are woken at once by idle notices.

use roocode_tests::mock_llm::{RouteMatch, Script};
use serde_json::Value;

use super::World;

/// Routes to the agent whose first user message (its task) contains `marker`.
pub fn first_user(marker: &str) -> RouteMatch {
    RouteMatch::FirstUserContains(marker.into())
}

/// Requests whose first user message contains `marker` (one agent's requests).
pub fn requests_of(w: &World, marker: &str) -> Vec<Value> {
    w.mock
        .requests()
        .into_iter()
        .map(|r| r.body)
        .filter(|b| first_user(marker).matches(&Default::default(), b))
        .collect()
}

/// The names in a recorded request's tool array.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// A world whose lead is woken at once by idle notices (`ROOCODE_TEAM_DEBOUNCE_MS=0`).
pub async fn team_world(script: Script) -> World {
    let mut w = World::new(script).await;
    w.vars.push(("ROOCODE_TEAM_DEBOUNCE_MS".into(), "0".into()));
    w
}
