//! The phase machine, run on a [`Bench`] before every model call: each live function's
//! gate sets its phase (active or gated), its transitions fire (activating others,
//! completing itself — never a locked one), repeated until nothing changes; then the
//! model is told what changed since it was last told: an active function's
//! instructions with the artifacts it consumes, a gated one's wait, a completed one's
//! end, a one-line reminder for a function whose `requires` are not live.

use roocode_protocol::workflow::FunctionPhase;

use serde::{Deserialize, Serialize};

use super::artifacts;
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
            row.activated_message = self.counters.user_messages + self.pending_messages + 1;
        }
        match self.rows.iter_mut().find(|r| r.name == name) {
            Some(old) => {
                // What it was told is kept: instructions it has read already are
                // not sent again, only that they apply again.
                row.told = old.told.take();
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
            let before: Option<Told> = self
                .row(&name)
                .and_then(|r| r.told.as_deref())
                .and_then(|t| serde_json::from_str(t).ok());
            let Some((now, text)) = self.news(&name, before.as_ref()) else {
                continue;
            };
            if before.as_ref() == Some(&now) {
                continue;
            }
            if let Some(row) = self.row_mut(&name) {
                row.told = serde_json::to_string(&now).ok();
            }
            if let Some(text) = text {
                self.injections.push(text);
            }
        }
    }

    /// What the model should be told of `name` now, given what it was told `before`:
    /// the new [`Told`] and the text, if any. An active function's instructions are sent
    /// whole once (again only when they change or the conversation was rewritten); a
    /// change of what it consumes sends the artifacts alone, a ticked checklist one line.
    fn news(&self, name: &str, before: Option<&Told>) -> Option<(Told, Option<String>)> {
        let row = self.row(name)?;
        let kept = |phase: String| Told {
            phase,
            ..before.cloned().unwrap_or_default()
        };
        let Some((skill, spec)) = self.function(name) else {
            return row.active.then(|| {
                let text = format!(
                    "The workflow function `{name}` is no longer defined (its skill file was removed or lost its function keys): it no longer applies."
                );
                (kept("missing".into()), Some(text))
            });
        };
        match row.phase {
            FunctionPhase::Complete => Some((
                kept("complete".into()),
                Some(format!(
                    "The workflow function `{name}` is complete: its instructions no longer apply."
                )),
            )),
            FunctionPhase::Gated => {
                let waiting = self.waiting_for(name).join(", ");
                Some((
                    kept(format!("gated:{waiting}")),
                    Some(format!(
                        "The workflow function `{name}` is waiting for {waiting}: do not follow its instructions yet."
                    )),
                ))
            }
            FunctionPhase::Active => {
                let missing: Vec<&str> = skill
                    .requires
                    .iter()
                    .map(String::as_str)
                    .filter(|r| !self.is_live(r))
                    .collect();
                if !missing.is_empty() {
                    return Some((
                        kept(format!("requires:{}", missing.join(","))),
                        Some(format!(
                            "The workflow function `{name}` requires {}, which are not active: it does not apply until they are (activate them, e.g. |{}|{name}|).",
                            missing.join(", "),
                            missing.join("|")
                        )),
                    ));
                }
                let body = self.instructions(name, skill, spec, &StoredArgs::parse(&row.args));
                let consumed: Vec<(&String, &String)> = spec
                    .consumes
                    .iter()
                    .filter_map(|a| self.artifacts.get(a).map(|text| (a, text)))
                    .collect();
                let raw: String = consumed
                    .iter()
                    .map(|(a, t)| format!("{a}\0{t}\0"))
                    .collect();
                let now = Told {
                    phase: "active".into(),
                    body: crate::workflow::fnv(&body),
                    artifacts: crate::workflow::fnv(&unticked(&raw)),
                    ticks: crate::workflow::fnv(&raw),
                };
                let blocks = || {
                    consumed
                        .iter()
                        .map(|(a, t)| artifact_block(a, t))
                        .collect::<Vec<_>>()
                        .join("")
                };
                let text = match before {
                    Some(b) if b.body == now.body && b.artifacts != now.artifacts => format!(
                        "The artifacts the workflow function `{name}` consumes changed:{}",
                        blocks()
                    ),
                    Some(b) if b.body == now.body && b.ticks != now.ticks => consumed
                        .iter()
                        .map(|(a, t)| {
                            let items = artifacts::checklist(t);
                            let done = items.iter().filter(|i| i.done).count();
                            format!("`{a}`: {done} of {} checklist items done.", items.len())
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                    Some(b) if b.body == now.body && b.phase != "active" => format!(
                        "The workflow function `{name}` is active again: its instructions given earlier apply."
                    ),
                    Some(b) if b == &now => return Some((now, None)),
                    _ => format!("{body}{}", blocks()),
                };
                Some((now, Some(text)))
            }
        }
    }

    /// An active function's instructions as the model reads them: its body with its
    /// arguments, what it stays in force until, the evidence it needs, how to write
    /// what it produces.
    fn instructions(
        &self,
        name: &str,
        skill: &crate::skills::Skill,
        spec: &crate::skills::FunctionSpec,
        args: &StoredArgs,
    ) -> String {
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
        text
    }

    /// What the observers of `name`'s activation do (see `observe`).
    fn observe_activation(&mut self, name: &str) {
        self.observe_function(name, Trigger::Activate, None, None);
    }
}

/// What the model was last told of a function (`FunctionRow::told`, JSON): its phase
/// (with what a gated one waited for), and digests of the instructions, of the
/// consumed artifacts with their checklists unticked, and of the artifacts as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Told {
    pub phase: String,
    pub body: u64,
    pub artifacts: u64,
    pub ticks: u64,
}

/// `text` with every checklist box unticked: a tick alone does not change it.
fn unticked(text: &str) -> String {
    text.replace("[x]", "[ ]").replace("[X]", "[ ]")
}

/// An artifact as the model reads it; a closing tag inside it cannot end the block or
/// the reminder around it.
fn artifact_block(name: &str, text: &str) -> String {
    let safe = text
        .trim_end()
        .replace("</artifact", "<\\/artifact")
        .replace("</system-reminder", "<\\/system-reminder");
    format!("\n\n<artifact name=\"{name}\">\n{safe}\n</artifact>")
}
