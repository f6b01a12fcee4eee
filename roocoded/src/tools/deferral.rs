//! Deferred tools (DESIGN.md §7, deferred loading): when an agent's MCP tools would
//! take too much of its context window, its requests list them by name only (in a
//! system reminder) and `ToolSearch` loads their full schemas. [`Discovered`] is the
//! agent's set of tools it has loaded so: their schemas go in its requests from then
//! on. The set is kept by whoever owns the agent (the engine stores it, so it survives
//! a restart); this module only holds it and reports additions.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Told of the names newly added to a [`Discovered`] set (to keep them).
pub type DiscoverySink = Arc<dyn Fn(Vec<String>) + Send + Sync>;

/// The deferred tools one agent has discovered.
pub struct Discovered {
    names: Mutex<BTreeSet<String>>,
    sink: Option<DiscoverySink>,
}

impl std::fmt::Debug for Discovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Discovered").field(&self.names()).finish()
    }
}

impl Discovered {
    /// A set holding `names`, telling `sink` of every later addition.
    pub fn new(names: impl IntoIterator<Item = String>, sink: Option<DiscoverySink>) -> Self {
        Discovered {
            names: Mutex::new(names.into_iter().collect()),
            sink,
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.lock().is_ok_and(|n| n.contains(name))
    }

    pub fn names(&self) -> Vec<String> {
        self.names
            .lock()
            .map(|n| n.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds `names`; the sink hears of those that are new.
    pub fn add<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let added: Vec<String> = match self.names.lock() {
            Ok(mut set) => names
                .into_iter()
                .filter(|n| set.insert((*n).to_string()))
                .map(str::to_string)
                .collect(),
            Err(_) => return,
        };
        if !added.is_empty()
            && let Some(sink) = &self.sink
        {
            sink(added);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_names_reach_the_sink() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink: DiscoverySink = {
            let heard = Arc::clone(&heard);
            Arc::new(move |names| heard.lock().unwrap().push(names))
        };
        let set = Discovered::new(["a".to_string()], Some(sink));
        set.add(["a", "b", "c"]);
        set.add(["b"]);
        assert!(set.contains("c") && !set.contains("d"));
        assert_eq!(
            *heard.lock().unwrap(),
            [vec!["b".to_string(), "c".to_string()]]
        );
    }
}
