//! The loops of a collaboration graph: its strongly connected components (Tarjan's
//! algorithm over at most [`MAX_AGENTS`](super::model::MAX_AGENTS) agents), which
//! edges are loop edges, and the key each loop's iteration counter is kept under.

use super::model::Graph;

/// The cyclic components of a graph: those of more than one agent, or of one agent with
/// an edge to itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loops {
    /// Per agent (graph order): the index in `keys` of its cyclic component, if any.
    member_of: Vec<Option<usize>>,
    /// Per cyclic component: its sorted agent names joined by `+`.
    keys: Vec<String>,
    /// The agent names, to look indexes up.
    agents: Vec<String>,
}

impl Loops {
    /// The loops of `graph`.
    pub(crate) fn of(graph: &Graph) -> Self {
        let index = |name: &str| graph.agents.iter().position(|a| a == name);
        let mut successors = vec![Vec::new(); graph.agents.len()];
        let mut self_loop = vec![false; graph.agents.len()];
        for edge in &graph.edges {
            if let (Some(from), Some(to)) = (index(&edge.from), edge.target().and_then(index)) {
                successors[from].push(to);
                if from == to {
                    self_loop[from] = true;
                }
            }
        }
        let mut member_of = vec![None; graph.agents.len()];
        let mut keys = Vec::new();
        for component in components(&successors) {
            let cyclic = match component.as_slice() {
                [one] => self_loop[*one],
                _ => true,
            };
            if !cyclic {
                continue;
            }
            let mut names: Vec<&str> = component
                .iter()
                .map(|&i| graph.agents[i].as_str())
                .collect();
            names.sort_unstable();
            for &i in &component {
                member_of[i] = Some(keys.len());
            }
            keys.push(names.join("+"));
        }
        Self {
            member_of,
            keys,
            agents: graph.agents.clone(),
        }
    }

    /// Whether the graph has any loop.
    pub(crate) fn any(&self) -> bool {
        !self.keys.is_empty()
    }

    /// The key of the loop `agent` belongs to.
    pub(crate) fn key_of(&self, agent: &str) -> Option<&str> {
        let i = self.agents.iter().position(|a| a == agent)?;
        let component = self.member_of[i]?;
        self.keys.get(component).map(String::as_str)
    }

    /// The loop's key when `from -> to` is a loop edge (both ends in one loop).
    pub(crate) fn loop_key(&self, from: &str, to: &str) -> Option<&str> {
        let key = self.key_of(from)?;
        (self.key_of(to) == Some(key)).then_some(key)
    }

    /// Every loop's agents, each list sorted by name, in the order their keys sort.
    pub(crate) fn members(&self) -> Vec<Vec<String>> {
        let mut keys = self.keys.clone();
        keys.sort();
        keys.iter()
            .map(|k| k.split('+').map(str::to_owned).collect())
            .collect()
    }
}

/// Tarjan's strongly connected components of the graph given by `successors`.
fn components(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut tarjan = Tarjan {
        successors,
        index: vec![None; successors.len()],
        low: vec![0; successors.len()],
        on_stack: vec![false; successors.len()],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for node in 0..successors.len() {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    tarjan.found
}

/// The bookkeeping of one Tarjan run (recursion depth is at most the agent count).
struct Tarjan<'a> {
    successors: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    found: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.next);
        self.low[node] = self.next;
        self.next += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        for &next in &self.successors[node] {
            match self.index[next] {
                None => {
                    self.visit(next);
                    self.low[node] = self.low[node].min(self.low[next]);
                }
                Some(index) if self.on_stack[next] => {
                    self.low[node] = self.low[node].min(index);
                }
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack[member] = false;
                component.push(member);
                if member == node {
                    break;
                }
            }
            self.found.push(component);
        }
    }
}

impl Graph {
    /// Whether some agent's work can come back to it.
    pub fn has_cycle(&self) -> bool {
        Loops::of(self).any()
    }

    /// The loops: each strongly connected component of more than one agent (or of one
    /// agent with an edge to itself), its agents sorted by name.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        Loops::of(self).members()
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Edge;
    use super::super::termination::Termination;
    use super::*;

    /// A graph from `a->b` routes; every agent named appears in `agents`.
    fn graph(routes: &[&str]) -> Graph {
        let mut agents: Vec<String> = Vec::new();
        let mut edges = Vec::new();
        for route in routes {
            let (from, to) = route.split_once("->").unwrap();
            for name in [from, to] {
                if !agents.iter().any(|a| a == name) {
                    agents.push(name.to_owned());
                }
            }
            edges.push(Edge::to(from, to));
        }
        Graph {
            agents,
            edges,
            max_iterations: None,
            termination: Termination::default(),
            topology: None,
        }
    }

    #[test]
    fn finds_the_loops_of_a_few_shapes() {
        let cases: [(&str, &[&str], &[&str]); 7] = [
            ("chain", &["a->b", "b->c"], &[]),
            ("two-cycle", &["a->b", "b->a"], &["a+b"]),
            ("self-loop", &["a->a", "a->b"], &["a"]),
            ("diamond", &["a->b", "a->c", "b->d", "c->d"], &[]),
            (
                "loop after a chain",
                &["x->a", "a->b", "b->c", "c->a", "c->y"],
                &["a+b+c"],
            ),
            (
                "two loops joined one way",
                &["a->b", "b->a", "b->c", "c->d", "d->c"],
                &["a+b", "c+d"],
            ),
            ("star", &["h->s", "s->h", "h->t", "t->h"], &["h+s+t"]),
        ];
        for (name, routes, want) in cases {
            let g = graph(routes);
            let keys: Vec<String> = g.cycles().iter().map(|c| c.join("+")).collect();
            assert_eq!(keys, want, "{name}");
            assert_eq!(g.has_cycle(), !want.is_empty(), "{name}");
        }
    }

    #[test]
    fn loop_edges_stay_inside_one_loop() {
        let g = graph(&["x->a", "a->b", "b->a", "b->y", "y->y"]);
        let loops = Loops::of(&g);
        let cases = [
            ("x", "a", None),
            ("a", "b", Some("a+b")),
            ("b", "a", Some("a+b")),
            ("b", "y", None),
            ("y", "y", Some("y")),
        ];
        for (from, to, want) in cases {
            assert_eq!(loops.loop_key(from, to), want, "{from} -> {to}");
        }
        assert_eq!(loops.key_of("x"), None);
    }
}
