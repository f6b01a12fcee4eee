//! Requests waiting for a human — permission requests and questions — and the modal
//! dialog that answers them. The attached session's requests come from its events and
//! snapshot; a request of another session can be opened from the side panel. The
//! first request not hidden (Esc hides) is shown; a request answered elsewhere closes.

mod permission;
mod question_form;
pub mod questions;

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyEvent};
use roocode_protocol::session::PendingRequest;
use serde_json::Value;

use crate::app::Action;

pub use permission::{PermissionForm, PermissionKey};
pub use question_form::{FormKey, QuestionForm, QuestionState};

/// The form of a request.
#[derive(Debug, Clone)]
pub enum Form {
    Permission(PermissionForm),
    Question(QuestionForm),
}

/// A request waiting for an answer.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub request_id: String,
    pub session_id: String,
    pub form: Form,
    /// Esc hid it (it stays in the panel).
    pub hidden: bool,
    /// The sub-agent that asks (its name), when it is not the session's own agent.
    pub agent: Option<String>,
}

impl Prompt {
    pub fn permission(
        request_id: &str,
        session_id: &str,
        tool: &str,
        input: &Value,
        reason: &str,
    ) -> Self {
        Prompt {
            request_id: request_id.to_owned(),
            session_id: session_id.to_owned(),
            form: Form::Permission(PermissionForm::new(tool, input, reason)),
            hidden: false,
            agent: None,
        }
    }

    pub fn question(request_id: &str, session_id: &str, questions: &Value) -> Self {
        Prompt {
            request_id: request_id.to_owned(),
            session_id: session_id.to_owned(),
            form: Form::Question(QuestionForm::new(questions::parse(questions))),
            hidden: false,
            agent: None,
        }
    }

    /// Labels the request with the sub-agent that asks (`None`: the session's agent).
    pub fn asked_by(mut self, agent: Option<String>) -> Self {
        self.agent = agent;
        self
    }

    /// A request listed by a snapshot or `pending.list`.
    pub fn from_pending(p: &PendingRequest) -> Self {
        let prompt = match p.kind.as_str() {
            "question" => Prompt::question(&p.request_id, &p.session_id, &p.input),
            _ => Prompt::permission(&p.request_id, &p.session_id, &p.tool, &p.input, &p.reason),
        };
        let agent = match (&p.agent_id, &p.agent_name) {
            (_, Some(name)) => Some(name.clone()),
            (Some(id), None) => Some(roocode_client::agents::unnamed(id)),
            (None, None) => None,
        };
        prompt.asked_by(agent)
    }
}

/// What a key did to the dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogKey {
    Action(Action),
    Handled,
    Ignored,
}

/// The requests waiting for this terminal's user.
#[derive(Debug, Clone, Default)]
pub struct Prompts {
    list: Vec<Prompt>,
    /// Requests answered from this terminal (their resolution is no news).
    answered_here: HashSet<String>,
}

impl Prompts {
    pub fn iter(&self) -> impl Iterator<Item = &Prompt> {
        self.list.iter()
    }

    pub fn contains(&self, request_id: &str) -> bool {
        self.list.iter().any(|p| p.request_id == request_id)
    }

    /// Adds a request (a known one keeps its state).
    pub fn add(&mut self, prompt: Prompt) {
        if !self.contains(&prompt.request_id) {
            self.list.push(prompt);
        }
    }

    pub fn remove(&mut self, request_id: &str) -> Option<Prompt> {
        let i = self.list.iter().position(|p| p.request_id == request_id)?;
        Some(self.list.remove(i))
    }

    /// The request the dialog shows.
    pub fn shown(&self) -> Option<&Prompt> {
        self.list.iter().find(|p| !p.hidden)
    }

    fn shown_mut(&mut self) -> Option<&mut Prompt> {
        self.list.iter_mut().find(|p| !p.hidden)
    }

    /// Position of the shown request and the number of requests.
    pub fn position(&self) -> (usize, usize) {
        let i = self.list.iter().position(|p| !p.hidden).unwrap_or(0);
        (i + 1, self.list.len())
    }

    /// Brings request `request_id` up in the dialog.
    pub fn show(&mut self, prompt: Prompt) {
        let mut p = self.remove(&prompt.request_id).unwrap_or(prompt);
        p.hidden = false;
        self.list.insert(0, p);
    }

    /// How many requests are hidden.
    pub fn hidden(&self) -> usize {
        self.list.iter().filter(|p| p.hidden).count()
    }

    /// The requests of `session_id` are exactly `pending` (a snapshot): known ones keep
    /// their state, the others are dropped.
    pub fn reset_session(&mut self, session_id: &str, pending: Vec<Prompt>) {
        let ids: HashSet<&str> = pending.iter().map(|p| p.request_id.as_str()).collect();
        self.list
            .retain(|p| p.session_id != session_id || ids.contains(p.request_id.as_str()));
        for p in pending {
            self.add(p);
        }
    }

    /// Requests of other sessions stay only while `pending.list` still lists them.
    pub fn retain_others(&mut self, attached: &str, pending: &[PendingRequest]) {
        self.list.retain(|p| {
            p.session_id == attached || pending.iter().any(|q| q.request_id == p.request_id)
        });
    }

    /// Pasted text goes into the shown dialog's text field, if one is being typed in
    /// (on one line); false when there is none.
    pub fn paste(&mut self, text: &str) -> bool {
        let Some(p) = self.shown_mut() else {
            return false;
        };
        let text = text.replace(['\r', '\n'], " ");
        match &mut p.form {
            Form::Permission(PermissionForm {
                feedback: Some(fb), ..
            }) => fb.insert_str(&text),
            Form::Question(f) if f.on_other() => {
                if let Some(st) = f.states.get_mut(f.current) {
                    st.other.insert_str(&text);
                }
            }
            _ => return true,
        }
        true
    }

    /// Whether `request_id` was answered here (forgotten once asked).
    pub fn answered_here(&mut self, request_id: &str) -> bool {
        self.answered_here.remove(request_id)
    }

    /// A key while the dialog shows a request.
    pub fn key(&mut self, key: KeyEvent) -> DialogKey {
        let Some(p) = self.shown_mut() else {
            return DialogKey::Ignored;
        };
        let request_id = p.request_id.clone();
        let action = match &mut p.form {
            Form::Permission(f) => {
                if f.feedback.is_none() && key.code == KeyCode::Esc {
                    p.hidden = true;
                    return DialogKey::Handled;
                }
                match f.key(key) {
                    PermissionKey::Decide(decision, feedback) => Action::RespondPermission {
                        request_id: request_id.clone(),
                        decision,
                        feedback,
                    },
                    PermissionKey::Handled => return DialogKey::Handled,
                    PermissionKey::Ignored => return DialogKey::Ignored,
                }
            }
            Form::Question(f) => {
                if key.code == KeyCode::Esc {
                    p.hidden = true;
                    return DialogKey::Handled;
                }
                match f.key(key) {
                    FormKey::Done(answers) => Action::AnswerQuestion {
                        request_id: request_id.clone(),
                        answers,
                    },
                    FormKey::Handled => return DialogKey::Handled,
                    FormKey::Ignored => return DialogKey::Ignored,
                }
            }
        };
        self.remove(&request_id);
        self.answered_here.insert(request_id);
        DialogKey::Action(action)
    }
}
