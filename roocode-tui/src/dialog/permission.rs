//! Answering a permission request: `y` allows once, `a` allows always, `n` denies —
//! then a one-line feedback for the model (optional; Enter sends, Esc goes back).

use crossterm::event::{KeyCode, KeyEvent};
use roocode_protocol::session::PermissionDecision;
use serde_json::Value;

use crate::input::{Editor, edit_line};

/// A permission request and the answer being given.
#[derive(Debug, Clone)]
pub struct PermissionForm {
    pub tool: String,
    pub input: Value,
    pub reason: String,
    /// `n` was pressed: the feedback being typed.
    pub feedback: Option<Editor>,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionKey {
    Decide(PermissionDecision, Option<String>),
    Handled,
    Ignored,
}

impl PermissionForm {
    pub fn new(tool: &str, input: &Value, reason: &str) -> Self {
        PermissionForm {
            tool: tool.to_owned(),
            input: input.clone(),
            reason: reason.to_owned(),
            feedback: None,
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> PermissionKey {
        if let Some(fb) = &mut self.feedback {
            return match key.code {
                KeyCode::Enter => {
                    let text = fb.text().trim().to_owned();
                    PermissionKey::Decide(
                        PermissionDecision::Deny,
                        (!text.is_empty()).then_some(text),
                    )
                }
                KeyCode::Esc => {
                    self.feedback = None;
                    PermissionKey::Handled
                }
                _ if edit_line(fb, key) => PermissionKey::Handled,
                _ => PermissionKey::Ignored,
            };
        }
        match key.code {
            KeyCode::Char('y' | 'Y') => PermissionKey::Decide(PermissionDecision::Allow, None),
            KeyCode::Char('a' | 'A') => {
                PermissionKey::Decide(PermissionDecision::AllowAlways, None)
            }
            KeyCode::Char('n' | 'N') => {
                self.feedback = Some(Editor::default());
                PermissionKey::Handled
            }
            _ => PermissionKey::Ignored,
        }
    }

    /// What the call would do, for the dialog: the command, the path, the URL, or the
    /// plan (ExitPlanMode); `None` when the input names none of them.
    pub fn subject(&self) -> Option<(&'static str, &str)> {
        let obj = self.input.as_object()?;
        [
            ("command", "Run"),
            ("file_path", "File"),
            ("notebook_path", "Notebook"),
            ("path", "Path"),
            ("url", "URL"),
            ("plan", "Plan"),
        ]
        .iter()
        .find_map(|(k, label)| obj.get(*k).and_then(Value::as_str).map(|v| (*label, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;
    use serde_json::json;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn deny_takes_optional_feedback() {
        let mut f = PermissionForm::new("Bash", &json!({"command": "rm -rf /"}), "");
        assert_eq!(f.key(key(KeyCode::Char('n'))), PermissionKey::Handled);
        for c in "no".chars() {
            f.key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            f.key(key(KeyCode::Enter)),
            PermissionKey::Decide(PermissionDecision::Deny, Some("no".into()))
        );
        let mut f = PermissionForm::new("Bash", &json!({}), "");
        f.key(key(KeyCode::Char('n')));
        assert_eq!(
            f.key(key(KeyCode::Enter)),
            PermissionKey::Decide(PermissionDecision::Deny, None)
        );
    }

    #[test]
    fn subject_prefers_the_command_then_the_path() {
        let f = PermissionForm::new("Bash", &json!({"command": "make", "path": "x"}), "");
        assert_eq!(f.subject(), Some(("Run", "make")));
        let f = PermissionForm::new("ExitPlanMode", &json!({"plan": "1. do"}), "");
        assert_eq!(f.subject(), Some(("Plan", "1. do")));
    }
}
