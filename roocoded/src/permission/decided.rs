//! Who decided a tool call (issue 16, item 2): the gate's answer with the layer that
//! gave it ([`Decided`]), for the flight recorder's `tool_calls` rows and
//! `roocode-cli trace --why`.
//!
//! [`DecidedBy`] has one variant per place that answers: every return of
//! `PermissionGate::check_layers` (dangerous command, read-only agent, path sandbox,
//! credential file, hard link, private address, protected file, a command RooCode
//! cannot see through, a user rule — with its text, file and line —, the mode), the
//! question of running outside the OS sandbox (`sandbox::disable::review`), and the
//! places outside the gate the agent loop records: a hook, the human who answered, the
//! OS sandbox stopping a command. It serialises as JSON with the layer's short name as
//! the `layer` tag ([`DecidedBy::layer`]); [`Decided::record`] adds `why`, the sentence
//! of [`Decided::explain`].

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Decision;
use super::modes::{self, Mode, ModeCase};
use super::network::AddressClass;
use super::protected::Protected;
use super::rules::{RuleKind, Verdict};
use super::secrets::Why;
use crate::config::RuleOrigin;

/// The gate's answer and who gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    pub decision: Decision,
    pub by: DecidedBy,
}

impl Decided {
    pub fn new(decision: Decision, by: DecidedBy) -> Self {
        Self { decision, by }
    }

    /// One sentence for a person: why the call was allowed, asked or denied
    /// (``allowed by rule `Bash(cargo test:*)` in /p/.roocode/config.yaml line 7``).
    /// A layer that asked in a `dontAsk` session says that the mode made it a deny.
    pub fn explain(&self) -> String {
        let why = self.by.explain();
        match self.decision {
            Decision::Deny { .. } if self.by.asks() => format!(
                "{why}; the session is in dontAsk mode, which denies whatever would be asked"
            ),
            Decision::Allow | Decision::Ask { .. } | Decision::Deny { .. } => why,
        }
    }

    /// The JSON to store: [`DecidedBy`]'s fields (`layer` first) and `why`.
    pub fn record(&self) -> serde_json::Value {
        let why = serde_json::Value::String(self.explain());
        match serde_json::to_value(&self.by) {
            Ok(serde_json::Value::Object(mut fields)) => {
                fields.insert("why".into(), why);
                serde_json::Value::Object(fields)
            }
            // A path that is not UTF-8 cannot be JSON: the layer and the sentence stay.
            Ok(_) | Err(_) => serde_json::json!({ "layer": self.by.layer(), "why": why }),
        }
    }
}

/// Who decided a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "layer", rename_all = "snake_case")]
pub enum DecidedBy {
    /// Layer 1: a dangerous command (`rm -rf /`, `mkfs`, a force push to `main`…),
    /// denied whatever the rules and the mode say.
    Dangerous { finding: String },
    /// Layer 1: an agent limited to read-only commands (`Explore`, `Plan`) ran
    /// something else.
    ReadOnlyAgent { why: String },
    /// Layer 2: the path sandbox (outside the workspace, a symlink escape).
    PathSandbox { reason: String },
    /// Layer 2: a `Read` of a file that usually holds credentials.
    Credentials { path: PathBuf, why: Why },
    /// Layer 2: a file with other names (hard links).
    HardLink {
        path: PathBuf,
        links: u64,
        write: bool,
    },
    /// A fetch of a local, private or cloud-metadata address.
    PrivateAddress { host: String, class: AddressClass },
    /// A write to a protected file (RooCode's config, `.git/`, shell start-up files…).
    Protected { path: PathBuf, class: Protected },
    /// A command the parser cannot see through (asked in every mode).
    OpaqueCommand { why: String },
    /// Layer 3: an allow, ask or deny rule of the user's configuration.
    #[serde(rename = "rule")]
    UserRule {
        kind: RuleKind,
        /// The rule as written.
        rule: String,
        /// Its file and line; `None` for a rule from no file (a command's or skill's
        /// `allowed-tools`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<RuleOrigin>,
    },
    /// Layer 4: the session's mode.
    Mode { mode: Mode, case: ModeCase },
    /// Bash's `dangerously_disable_sandbox`: asked whatever the layers said, which
    /// `before` records.
    #[serde(rename = "os_sandbox")]
    NoOsSandbox { before: Box<DecidedBy> },
    /// A hook answered (not the gate: recorded by the agent loop).
    Hook {
        point: HookPoint,
        /// The hook's command or name, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hook: Option<String>,
        /// The reason it gave.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// What the gate had answered, when the hook changed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<Box<DecidedBy>>,
    },
    /// A person answered the question the gate asked (not the gate: recorded by the
    /// agent loop).
    Human {
        answer: HumanAnswer,
        /// The client that answered (`tui`, `cli`, with its pid when known).
        answered_by: roocode_protocol::event::DecidedBy,
        /// The layer that asked.
        asked: Box<DecidedBy>,
    },
    /// The OS sandbox stopped the command while it ran (its output says a write was
    /// refused); recorded by the agent loop.
    SandboxStopped {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<PathBuf>,
    },
}

/// Where a hook answered for a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookPoint {
    /// `pre_tool_use`, before the gate's answer is acted on.
    PreToolUse,
    /// `permission_request`, instead of asking a person.
    PermissionRequest,
}

impl HookPoint {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "pre_tool_use",
            Self::PermissionRequest => "permission_request",
        }
    }
}

/// What a person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HumanAnswer {
    AllowOnce,
    AllowAlways,
    Deny,
}

impl From<Verdict> for DecidedBy {
    fn from(verdict: Verdict) -> Self {
        Self::UserRule {
            kind: verdict.kind,
            rule: verdict.rule,
            origin: verdict.origin,
        }
    }
}

impl DecidedBy {
    /// The layer's short name, as the JSON's `layer` tag spells it.
    pub fn layer(&self) -> &'static str {
        match self {
            Self::Dangerous { .. } => "dangerous",
            Self::ReadOnlyAgent { .. } => "read_only_agent",
            Self::PathSandbox { .. } => "path_sandbox",
            Self::Credentials { .. } => "credentials",
            Self::HardLink { .. } => "hard_link",
            Self::PrivateAddress { .. } => "private_address",
            Self::Protected { .. } => "protected",
            Self::OpaqueCommand { .. } => "opaque_command",
            Self::UserRule { .. } => "rule",
            Self::Mode { .. } => "mode",
            Self::NoOsSandbox { .. } => "os_sandbox",
            Self::Hook { .. } => "hook",
            Self::Human { .. } => "human",
            Self::SandboxStopped { .. } => "sandbox_stopped",
        }
    }

    /// True for a layer whose own answer is a question (in `dontAsk`, a deny).
    pub fn asks(&self) -> bool {
        match self {
            Self::Credentials { .. }
            | Self::HardLink { .. }
            | Self::PrivateAddress { .. }
            | Self::Protected { .. }
            | Self::OpaqueCommand { .. }
            | Self::NoOsSandbox { .. } => true,
            Self::UserRule { kind, .. } => *kind == RuleKind::Ask,
            Self::Dangerous { .. }
            | Self::ReadOnlyAgent { .. }
            | Self::PathSandbox { .. }
            | Self::Mode { .. }
            | Self::Hook { .. }
            | Self::Human { .. }
            | Self::SandboxStopped { .. } => false,
        }
    }

    /// One sentence for a person, lower case and without a full stop so that it can
    /// be part of another (``allowed by rule `Bash(cargo test:*)` in
    /// /p/.roocode/config.yaml line 7``).
    pub fn explain(&self) -> String {
        match self {
            Self::Dangerous { finding } => {
                format!("denied as a dangerous command, which nothing allows: {finding}")
            }
            Self::ReadOnlyAgent { why } => format!(
                "denied because this agent may only run read-only commands, whatever the \
                 mode and rules say: {why}"
            ),
            Self::PathSandbox { reason } => format!(
                "denied by the path sandbox (the project and the additional directories), \
                 which no rule or mode overrides: {reason}"
            ),
            Self::Credentials { path, why } => format!(
                "asked because {} usually holds credentials ({why}): reading such a file \
                 is asked in every mode but bypassPermissions, unless an allow rule names it",
                path.display()
            ),
            Self::HardLink {
                path,
                links,
                write: true,
            } => format!(
                "asked because {} has {links} hard links (other names RooCode cannot see): \
                 writing such a file is asked in every mode",
                path.display()
            ),
            Self::HardLink {
                path,
                links,
                write: false,
            } => format!(
                "asked because {} has {links} hard links (other names RooCode cannot see): \
                 reading such a file is asked in every mode, unless an allow rule names it",
                path.display()
            ),
            Self::PrivateAddress { host, class } => format!(
                "asked because {host} is {}: local and private addresses are asked in every \
                 mode, unless an allow rule names the host",
                class.describe()
            ),
            Self::Protected { path, class } => format!(
                "asked because {} is a protected file ({class}): writing it is asked in \
                 every mode, and only a deny rule answers first",
                path.display()
            ),
            Self::OpaqueCommand { why } => format!(
                "asked because RooCode cannot check this command before it runs ({why}), \
                 which is asked in every mode unless a deny rule denies it"
            ),
            Self::UserRule { kind, rule, origin } => {
                let verdict = Verdict {
                    kind: *kind,
                    rule: rule.clone(),
                    origin: origin.clone(),
                };
                let by = match kind {
                    RuleKind::Allow => "allowed by rule",
                    RuleKind::Ask => "asked because of rule",
                    RuleKind::Deny => "denied by rule",
                };
                format!("{by} {}", verdict.in_words())
            }
            Self::Mode { mode, case } => mode_sentence(*mode, *case),
            Self::NoOsSandbox { before } => format!(
                "asked because the command asks to run without the OS sandbox \
                 (dangerously_disable_sandbox), which no rule or mode answers; before that \
                 it was {}",
                before.explain()
            ),
            Self::Hook {
                point,
                hook,
                reason,
                before,
            } => {
                let mut out = format!("decided by a {} hook", point.as_str());
                if let Some(hook) = hook {
                    out.push_str(&format!(" ({hook})"));
                }
                if let Some(reason) = reason.as_deref().filter(|r| !r.trim().is_empty()) {
                    out.push_str(&format!(", which said: {reason}"));
                }
                if let Some(before) = before {
                    out.push_str(&format!("; the permission layer had {}", before.explain()));
                }
                out
            }
            Self::Human {
                answer,
                answered_by,
                asked,
            } => {
                let what = match answer {
                    HumanAnswer::AllowOnce => "allowed once",
                    HumanAnswer::AllowAlways => "allowed always (an allow rule was written)",
                    HumanAnswer::Deny => "denied",
                };
                let who = match answered_by.pid {
                    Some(pid) => format!("{} (pid {pid})", answered_by.kind),
                    None => answered_by.kind.clone(),
                };
                format!("{what} by the user in {who}, {}", asked.explain())
            }
            Self::SandboxStopped { path } => match path {
                Some(path) => format!(
                    "stopped by the OS sandbox: the command could not write {}",
                    path.display()
                ),
                None => "stopped by the OS sandbox while it ran".to_string(),
            },
        }
    }
}

/// The mode layer's sentence: what `mode` does with calls of `case`.
fn mode_sentence(mode: Mode, case: ModeCase) -> String {
    let what = case.describe();
    if case == ModeCase::ReadOnly {
        return format!("allowed by the mode: {what} is allowed in every mode");
    }
    if modes::allows(mode, case) {
        return format!("allowed by the mode: {mode} allows {what}");
    }
    if mode == Mode::DontAsk {
        return format!("denied by the mode: dontAsk denies {what}, which would be asked");
    }
    format!("asked by the mode: {mode} asks before {what}")
}

#[cfg(test)]
mod tests;
