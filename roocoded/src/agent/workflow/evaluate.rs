//! The phase machine, run on a [`Bench`] before every model call: each live function's
//! gate sets its phase (active or gated), its transitions fire (activating others,
//! completing itself — never a locked one), repeated until nothing changes; then the
//! model is told what changed since it was last told: an active function's
//! instructions with the artifacts it consumes, a gated one's wait, a completed one's
//! end, a one-line reminder for a function whose `requires` are not live.

use roocode_protocol::workflow::FunctionPhase;

use super::bench::{Bench, StoredArgs, event};
use super::facts::FunctionFacts;
use super::observe::Trigger;
use crate::skills::function::When;
use crate::skills::{self, Arguments};
use crate::store::FunctionRow;
use crate::workflow::condition::Condition;

/// The most rounds of transitions in one evaluation: a cycle of activations settles
/// within it or waits for the next model call.
const MAX_PASSES: usize = 8;

/// The `kv` key marking that a locked function's deactivation was refused (told once).
pub const REFUSED_KEY: &str = "deactivation_refused";

/// Who activates a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// The user, with `|name|` at the start of a message (not delivered yet).
    User,
    /// `skills.auto`.
    Auto,
    /// Another function's transition.
    Transition(&'a str),
}

impl Bench {
    /// Activates the function `name` (a skill with function keys); a live one stays as
    /// it is, a complete one starts again. Returns whether it was activated.
    pub fn activate(&mut self, name: &str, args: &StoredArgs, origin: Origin<'_>) -> bool {
        let Some((_, spec)) = self.function(name) else {
            return false;
        };
        let locked = spec.locked && origin == Origin::Auto;
        if self.is_live(name) {
            return false;
        }
        let mut row = FunctionRow::new(name, locked, args.to_json(), &self.counters);
        // A message activating it is counted once delivered: it approves nothing.
        if origin == Origin::User {
            row.activated_message = self.counters.user_messages + 1;
        }
        match self.rows.iter_mut().find(|r| r.name == name) {
            Some(old) => {
                // What the model was told stays (a complete function is told again).
                row.told = None;
                *old = row;
            }
            None => self.rows.push(row),
        }
        self.changed.insert(name.to_string());
        let by = match origin {
            Origin::User => "by the user".to_string(),
            Origin::Auto => "by skills.auto".to_string(),
            Origin::Transition(from) => format!("by a transition of `{from}`"),
        };
        self.events.push(event(
            "activated",
            name,
            Some(FunctionPhase::Active),
            format!("function `{name}` activated {by}"),
        ));
        self.observe_activation(name);
        true
    }

    /// Gates and transitions of every live function, until nothing changes.
    pub fn evaluate(&mut self) {
        for _ in 0..MAX_PASSES {
            let mut moved = false;
            for name in self.live() {
                moved |= self.step(&name);
            }
            if !moved {
                break;
            }
        }
    }

    /// One function's gate and transitions; whether another function was activated or
    /// this one completed.
    fn step(&mut self, name: &str) -> bool {
        let Some((_, spec)) = self.function(name) else {
            return false;
        };
        let Some(row) = self.row(name) else {
            return false;
        };
        let facts = FunctionFacts {
            bench: self,
            row,
            spec,
        };
        let gate_holds = spec.gate.as_ref().is_none_or(|g| g.holds(&facts));
        let fired: Vec<(usize, String)> = spec
            .transitions
            .iter()
            .enumerate()
            .filter(|(_, t)| match &t.when {
                When::Gate => gate_holds,
                When::Condition(c) => c.holds(&facts),
            })
            .map(|(i, t)| {
                let when = match &t.when {
                    When::Gate => "gate".to_string(),
                    When::Condition(c) => c.to_string(),
                };
                (i, when)
            })
            .collect();
        let transitions = spec.transitions.clone();
        let phase = if gate_holds {
            FunctionPhase::Active
        } else {
            FunctionPhase::Gated
        };
        let waiting = self.waiting_for(name);
        if let Some(row) = self.row_mut(name)
            && row.phase != phase
        {
            row.phase = phase;
            let message = match phase {
                FunctionPhase::Gated => {
                    format!(
                        "function `{name}` is gated: waiting for {}",
                        waiting.join(", ")
                    )
                }
                _ => format!("function `{name}` is active: its gate holds"),
            };
            self.events.push(event("phase", name, Some(phase), message));
        }
        let mut moved = false;
        for (i, when) in fired {
            let Some(t) = transitions.get(i) else {
                continue;
            };
            let mut activated = Vec::new();
            for target in &t.activate {
                if self.function(target).is_none() {
                    self.refuse_once(
                        name,
                        &format!("unknown_{target}"),
                        format!(
                            "a transition of `{name}` activates `{target}`, which is not a workflow function here (no skill of that name has function keys)"
                        ),
                    );
                    continue;
                }
                if self.activate(target, &StoredArgs::default(), Origin::Transition(name)) {
                    activated.push(target.clone());
                }
            }
            let mut completed = false;
            if t.deactivate_self {
                if self.row(name).is_some_and(|r| r.locked) {
                    self.refuse_once(
                        name,
                        REFUSED_KEY,
                        format!(
                            "function `{name}` is locked (skills.auto with locked: true): its transition may not deactivate it"
                        ),
                    );
                } else if let Some(row) = self.row_mut(name) {
                    row.phase = FunctionPhase::Complete;
                    row.active = false;
                    completed = true;
                }
            }
            if activated.is_empty() && !completed {
                continue;
            }
            moved = true;
            let mut what = Vec::new();
            if !activated.is_empty() {
                what.push(format!("activates {}", activated.join(", ")));
            }
            if completed {
                what.push(format!("completes `{name}`"));
            }
            self.events.push(event(
                "transition",
                name,
                completed.then_some(FunctionPhase::Complete),
                format!("transition of `{name}` ({when}): {}", what.join(" and ")),
            ));
            if completed {
                break;
            }
        }
        moved
    }

    /// Records a refusal once per function and `key` (kept in its key-value store).
    fn refuse_once(&mut self, name: &str, key: &str, message: String) {
        let Some(row) = self.row(name) else {
            return;
        };
        if row.kv.contains_key(key) {
            return;
        }
        if let Some(row) = self.row_mut(name) {
            row.kv.insert(key.to_string(), "true".to_string());
        }
        tracing::warn!(function = name, "{message}");
        self.events.push(event("refused", name, None, message));
    }

    /// The leaf conditions keeping `name`'s gate from holding.
    pub fn waiting_for(&self, name: &str) -> Vec<String> {
        let (Some((_, spec)), Some(row)) = (self.function(name), self.row(name)) else {
            return Vec::new();
        };
        let facts = FunctionFacts {
            bench: self,
            row,
            spec,
        };
        spec.gate
            .as_ref()
            .map(|g| g.unmet(&facts))
            .unwrap_or_default()
    }

    /// Whether `name`'s `continue_until` holds (`None`: it has none).
    pub fn done(&self, name: &str) -> Option<(bool, Vec<String>)> {
        let (_, spec) = self.function(name)?;
        let until: &Condition = spec.continue_until.as_ref()?;
        let row = self.row(name)?;
        let facts = FunctionFacts {
            bench: self,
            row,
            spec,
        };
        Some((until.holds(&facts), until.unmet(&facts)))
    }

    /// Tells the model what changed about each function since it was last told (see
    /// the module doc), in ascending `priority`.
    pub fn tell(&mut self) {
        let mut names: Vec<(i32, String)> = self
            .rows
            .iter()
            .map(|r| {
                let priority = self
                    .skills
                    .get(&r.name)
                    .map_or(skills::DEFAULT_PRIORITY, |s| s.priority);
                (priority, r.name.clone())
            })
            .collect();
        names.sort();
        for (_, name) in names {
            let Some(text) = self.news(&name) else {
                continue;
            };
            let stamp = format!("{:016x}", crate::workflow::fnv(&text));
            if self.row(&name).and_then(|r| r.told.as_deref()) == Some(stamp.as_str()) {
                continue;
            }
            if let Some(row) = self.row_mut(&name) {
                row.told = Some(stamp);
            }
            self.injections.push(text);
        }
    }

    /// What the model should know of `name` now.
    fn news(&self, name: &str) -> Option<String> {
        let row = self.row(name)?;
        let Some((skill, spec)) = self.function(name) else {
            return row.active.then(|| {
                format!(
                    "The workflow function `{name}` is no longer defined (its skill file was removed or lost its function keys): it no longer applies."
                )
            });
        };
        match row.phase {
            FunctionPhase::Complete => Some(format!(
                "The workflow function `{name}` is complete: its instructions no longer apply."
            )),
            FunctionPhase::Gated => Some(format!(
                "The workflow function `{name}` is waiting for {}: do not follow its instructions yet.",
                self.waiting_for(name).join(", ")
            )),
            FunctionPhase::Active => {
                let missing: Vec<&str> = skill
                    .requires
                    .iter()
                    .map(String::as_str)
                    .filter(|r| !self.is_live(r))
                    .collect();
                if !missing.is_empty() {
                    return Some(format!(
                        "The workflow function `{name}` requires {}, which are not active: it does not apply until they are (activate them, e.g. |{}|{name}|).",
                        missing.join(", "),
                        missing.join("|")
                    ));
                }
                let args = StoredArgs::parse(&row.args);
                let body = skills::substitute(
                    &skill.body,
                    &skill.params,
                    &Arguments::from_activation(&args.activation(name)),
                );
                let mut text = format!(
                    "The workflow function `{name}` is active ({}). Follow its instructions:\n\n{}",
                    skill.origin(),
                    body.trim_end()
                );
                if let Some(until) = &spec.continue_until {
                    text.push_str(&format!("\n\nIt stays in force until {until}."));
                }
                if !spec.requires_evidence.is_empty() {
                    text.push_str(&format!(
                        "\n\nEvidence it needs: {}.",
                        spec.requires_evidence.join(", ")
                    ));
                }
                for artifact in &spec.produces {
                    text.push_str(&format!(
                        "\n\nWrite the artifact `{artifact}` as a fenced block tagged with its name (```{artifact} … ```): the last such block is kept."
                    ));
                }
                for artifact in &spec.consumes {
                    if let Some(content) = self.artifacts.get(artifact) {
                        text.push_str(&format!(
                            "\n\n<artifact name=\"{artifact}\">\n{}\n</artifact>",
                            content.trim_end()
                        ));
                    }
                }
                Some(text)
            }
        }
    }

    /// What the observers of `name`'s activation do (see `observe`).
    fn observe_activation(&mut self, name: &str) {
        self.observe_function(name, Trigger::Activate, None, None);
    }
}
