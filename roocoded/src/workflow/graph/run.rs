//! Running a collaboration: where it starts, whether a dispatch follows the route, how a
//! completion moves the frontier and counts loop iterations, and when the workflow
//! ends. The graph advances only when a dispatched agent completes, never when it is
//! launched, so background work cannot move it early.

use super::model::Graph;
use super::scc::Loops;
use super::state::{Completion, Dispatch, GraphState, Status, Step};
use super::termination::Facts;

/// Dispatches off the route in a row that end the workflow.
pub const OFF_ROUTE_LIMIT: u32 = 3;

/// Why the workflow ends after [`OFF_ROUTE_LIMIT`] off-route dispatches.
pub const OFF_ROUTE_REASON: &str = "three dispatches off the graph's route in a row";

/// Why the workflow ends when nothing is left to do.
pub const ALL_DONE_REASON: &str = "every agent on the route completed";

/// What settling a completion decided.
struct Settled {
    ended: Option<(Status, String)>,
    judge_needed: bool,
}

impl Settled {
    fn ended(ended: (Status, String)) -> Self {
        Self {
            ended: Some(ended),
            judge_needed: false,
        }
    }
}

impl Graph {
    /// A new run: the frontier is the agents no other agent hands work to (an edge from
    /// an agent to itself does not count), in `agents` order; when every agent has one,
    /// the first agent.
    pub fn start(&self, now_ms: u64) -> GraphState {
        let fed = |agent: &str| {
            self.edges
                .iter()
                .any(|e| e.target() == Some(agent) && e.from != agent)
        };
        let mut frontier: Vec<String> = self.agents.iter().filter(|a| !fed(a)).cloned().collect();
        if frontier.is_empty() {
            frontier.extend(self.agents.first().cloned());
        }
        GraphState {
            frontier,
            started_ms: now_ms,
            ..GraphState::default()
        }
    }

    /// A dispatch of `agent` is starting. On the frontier: on route (and the off-route
    /// count resets). Otherwise a correction for the orchestrator; the third off-route
    /// dispatch in a row ends the workflow (Exhausted). Once ended, every dispatch is
    /// off route with a correction saying so (`end: false`).
    pub fn dispatch(&self, state: &mut GraphState, agent: &str) -> Dispatch {
        match state.status {
            Status::Active => {}
            Status::Complete | Status::Exhausted => {
                let reason = state.reason.as_deref().unwrap_or("it ended");
                return Dispatch::OffRoute {
                    correction: format!(
                        "The collaboration workflow has ended ({reason}): do not dispatch {agent} \
                         or any other agent; synthesize the results for the user."
                    ),
                    end: false,
                };
            }
        }
        if state.frontier.iter().any(|a| a == agent) {
            state.off_route = 0;
            return Dispatch::OnRoute;
        }
        state.off_route += 1;
        let frontier = state.frontier.join(", ");
        if state.off_route >= OFF_ROUTE_LIMIT {
            state.end(Status::Exhausted, OFF_ROUTE_REASON.to_owned());
            return Dispatch::OffRoute {
                correction: format!(
                    "Dispatching {agent} is the third dispatch off the collaboration graph's \
                     route in a row (frontier: {frontier}), so the workflow has ended. Stop \
                     dispatching agents and synthesize the results you have for the user."
                ),
                end: true,
            };
        }
        let expected = either(&state.frontier);
        let outsider = if self.has_agent(agent) {
            "is not on it"
        } else {
            "is not part of the collaboration"
        };
        Dispatch::OffRoute {
            correction: format!(
                "The collaboration graph expects {expected} next (frontier: {frontier}); \
                 {agent} {outsider}. Dispatch {expected}, or stop and synthesize the results \
                 if the work is done. Off-route dispatches in a row: {n} of {OFF_ROUTE_LIMIT} \
                 (the last ends the workflow).",
                n = state.off_route,
            ),
            end: false,
        }
    }

    /// A dispatched agent completed. Its result is always recorded. Only an agent on the
    /// frontier advances the graph: it leaves the frontier, joins `completed`, and its
    /// hand-off targets join the frontier; re-entering a loop agent that already
    /// completed this round counts one iteration of that loop. Then the termination
    /// decides (see the module documentation of `graph` for the order).
    pub fn complete(&self, state: &mut GraphState, completion: &Completion, now_ms: u64) -> Step {
        state.record(completion);
        let agent = completion.agent.as_str();
        let on_route = state.frontier.iter().any(|a| a == agent);
        let active = match state.status {
            Status::Active => true,
            Status::Complete | Status::Exhausted => false,
        };
        if !active || !on_route {
            return Step {
                advanced: false,
                frontier: state.frontier.clone(),
                judge_needed: false,
                ended: None,
            };
        }
        state.steps += 1;
        state.last_agent = Some(agent.to_owned());
        self.advance(state, agent);
        let settled = self.settle(state, agent, now_ms, None);
        Step {
            advanced: true,
            frontier: state.frontier.clone(),
            judge_needed: settled.judge_needed,
            ended: settled.ended,
        }
    }

    /// The judge answered after a step with `judge_needed`: decides as
    /// [`Graph::complete`] would have with the answer known. Returns how the workflow
    /// ended, if it did now. Call it before the next completion; call it with `false`
    /// when the judge could not be asked, so the other limits still apply.
    pub fn judged(
        &self,
        state: &mut GraphState,
        converged: bool,
        now_ms: u64,
    ) -> Option<(Status, String)> {
        match state.status {
            Status::Active => {}
            Status::Complete | Status::Exhausted => return None,
        }
        let agent = state.last_agent.clone()?;
        self.settle(state, &agent, now_ms, Some(converged)).ended
    }

    /// Moves the frontier past `agent`'s completion and counts loop iterations.
    fn advance(&self, state: &mut GraphState, agent: &str) {
        let loops = Loops::of(self);
        state.frontier.retain(|a| a != agent);
        let targets = self.targets(agent);
        // A loop agent finishing after its loop already started the next round (every
        // loop target it hands to is waiting again, nothing of the loop done yet) belongs
        // to the old round: it does not enter `completed`, so the new round's count is
        // not advanced by it.
        let late = loops.key_of(agent).is_some_and(|key| {
            let round_started = state.completed.iter().any(|a| loops.key_of(a) == Some(key));
            let mut loop_targets = targets
                .iter()
                .filter(|t| loops.loop_key(agent, t).is_some())
                .peekable();
            !round_started
                && loop_targets.peek().is_some()
                && loop_targets.all(|t| state.frontier.iter().any(|f| f == t))
        });
        if !late && !state.completed.iter().any(|a| a == agent) {
            state.completed.push(agent.to_owned());
        }
        for target in targets {
            if let Some(key) = loops.loop_key(agent, target)
                && state.completed.iter().any(|a| a == target)
            {
                *state.loop_counts.entry(key.to_owned()).or_default() += 1;
                state.completed.retain(|a| loops.key_of(a) != Some(key));
            }
            if !state.frontier.iter().any(|a| a == target) {
                state.frontier.push(target.to_owned());
            }
        }
        state.iteration = state.loop_counts.values().copied().max().unwrap_or(0);
    }

    /// Decides whether the workflow ends after `agent`'s completion (`converged`: the
    /// judge's answer, once asked).
    fn settle(
        &self,
        state: &mut GraphState,
        agent: &str,
        now_ms: u64,
        converged: Option<bool>,
    ) -> Settled {
        let facts = Facts {
            state,
            agent,
            now_ms,
            converged,
        };
        let verdicts = self.termination.verdicts(&facts);
        // Success terms end the workflow only at an exit agent (anywhere when no agent
        // has an exit edge).
        let may_succeed = self.exits(agent) || !self.has_exit_edges();
        let awaits_judge =
            converged.is_none() && may_succeed && self.termination.awaits_judge(&facts);
        let success = verdicts.iter().find(|v| v.status == Status::Complete);
        if let Some(verdict) = success.filter(|_| may_succeed) {
            return Settled::ended(state.end(Status::Complete, verdict.reason.clone()));
        }
        if self.exits(agent) && self.targets(agent).is_empty() {
            let reason = if state.frontier.is_empty() {
                ALL_DONE_REASON.to_owned()
            } else {
                format!("{agent} completed and ends the workflow")
            };
            return Settled::ended(state.end(Status::Complete, reason));
        }
        if awaits_judge {
            return Settled {
                ended: None,
                judge_needed: true,
            };
        }
        if let Some(verdict) = verdicts.iter().find(|v| v.status == Status::Exhausted) {
            return Settled::ended(state.end(Status::Exhausted, verdict.reason.clone()));
        }
        if let Some(max) = self.effective_max_iterations()
            && state.iteration >= max
        {
            let reason = format!("max_iterations ({max}) reached");
            return Settled::ended(state.end(Status::Exhausted, reason));
        }
        if state.frontier.is_empty() {
            return Settled::ended(state.end(Status::Complete, ALL_DONE_REASON.to_owned()));
        }
        Settled {
            ended: None,
            judge_needed: false,
        }
    }
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn either(names: &[String]) -> String {
    match names {
        [] => "no agent".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
