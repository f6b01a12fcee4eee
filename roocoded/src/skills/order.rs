//! What the engine does with activated skills before injecting them: look their names
//! up ([`resolve`], an unknown one naming the closest), check that each one's
//! `requires` are active too ([`unmet_requires`], [`unmet_reminder`]), and put them in
//! ascending `priority`, ties by name ([`by_priority`]).

use roocode_protocol::command::closest;
use thiserror::Error;

use super::{Activation, Skill, SkillSet};

/// Why an activation names no skill the user may invoke.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum UnknownSkill {
    #[error("unknown skill `{name}`{}", did_you_mean(closest))]
    Unknown { name: String, closest: Vec<String> },
    #[error("the skill `{0}` is for the model only (`user-invocable: false`)")]
    ModelOnly(String),
}

fn did_you_mean(closest: &[String]) -> String {
    match closest {
        [] => String::new(),
        [one] => format!(": did you mean `{one}`?"),
        more => format!(": did you mean one of {}?", quoted(more)),
    }
}

fn quoted(names: &[impl AsRef<str>]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The skill of each activation, in order; the first unknown (or model-only) name is
/// an error naming the closest user-invocable skills.
pub fn resolve<'s, 'a>(
    set: &'s SkillSet,
    activations: &'a [Activation],
) -> Result<Vec<(&'s Skill, &'a Activation)>, UnknownSkill> {
    activations
        .iter()
        .map(|activation| match set.get(&activation.name) {
            Some(skill) if skill.user_invocable => Ok((skill, activation)),
            Some(skill) => Err(UnknownSkill::ModelOnly(skill.name.clone())),
            None => {
                let known: Vec<&str> = set
                    .skills
                    .iter()
                    .filter(|s| s.user_invocable)
                    .map(|s| s.name.as_str())
                    .collect();
                let closest = closest(&activation.name, &known)
                    .into_iter()
                    .take(3)
                    .map(str::to_string)
                    .collect();
                Err(UnknownSkill::Unknown {
                    name: activation.name.clone(),
                    closest,
                })
            }
        })
        .collect()
}

/// Each active skill whose `requires` are not all active, with the missing names in
/// the order it lists them.
pub fn unmet_requires<'a>(active: &[&'a Skill]) -> Vec<(&'a Skill, Vec<&'a str>)> {
    active
        .iter()
        .filter_map(|skill| {
            let missing: Vec<&str> = skill
                .requires
                .iter()
                .map(String::as_str)
                .filter(|r| !active.iter().any(|a| a.name == *r))
                .collect();
            (!missing.is_empty()).then_some((*skill, missing))
        })
        .collect()
}

/// The one-line reminder shown instead of the skills whose `requires` are unmet.
pub fn unmet_reminder(unmet: &[(&Skill, Vec<&str>)]) -> Option<String> {
    let parts: Vec<String> = unmet
        .iter()
        .map(|(skill, missing)| format!("`{}` requires {}", skill.name, quoted(missing)))
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Not activated: {}, which are not active; activate them together, e.g. |{}|.",
            parts.join("; "),
            chain(unmet)
        )
    })
}

/// An activation chain naming the required skills first, then the skills themselves.
fn chain(unmet: &[(&Skill, Vec<&str>)]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in unmet
        .iter()
        .flat_map(|(skill, missing)| missing.iter().copied().chain([skill.name.as_str()]))
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.join("|")
}

/// The skills in the order they are injected: ascending `priority`, ties by name, each
/// name once.
pub fn by_priority<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> Vec<&'a Skill> {
    let mut out: Vec<&Skill> = Vec::new();
    for skill in skills {
        if !out.iter().any(|s| s.name == skill.name) {
            out.push(skill);
        }
    }
    out.sort_by(|a, b| (a.priority, &a.name).cmp(&(b.priority, &b.name)));
    out
}
