//! Answering the questions of a `question` event, one at a time: Up/Down move among
//! the numbered options and a last "other" row for free text; a digit picks an option
//! (toggles it in a multi-select question), Space toggles, typing writes free text,
//! Enter confirms and goes to the next question; the last Enter sends the answers
//! (labels, multi-select labels joined by `, `, or the free text).

use std::collections::BTreeSet;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::questions::Question;
use crate::input::{Editor, edit_line};

/// Where one question's answer stands.
#[derive(Debug, Clone, Default)]
pub struct QuestionState {
    /// The row under the cursor: an option, or `options.len()` for free text.
    pub cursor: usize,
    /// Options chosen in a multi-select question.
    pub chosen: BTreeSet<usize>,
    pub other: Editor,
}

/// The answers being given to a request's questions.
#[derive(Debug, Clone)]
pub struct QuestionForm {
    pub questions: Vec<Question>,
    /// The question shown.
    pub current: usize,
    pub states: Vec<QuestionState>,
    pub answers: Vec<String>,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormKey {
    /// Every question is answered: these are the answers, in order.
    Done(Vec<String>),
    Handled,
    Ignored,
}

impl QuestionForm {
    pub fn new(questions: Vec<Question>) -> Self {
        let states = vec![QuestionState::default(); questions.len().max(1)];
        QuestionForm {
            questions,
            current: 0,
            states,
            answers: Vec::new(),
        }
    }

    pub fn question(&self) -> Option<&Question> {
        self.questions.get(self.current)
    }

    pub fn state(&self) -> Option<&QuestionState> {
        self.states.get(self.current)
    }

    /// The cursor is on the free-text row.
    pub fn on_other(&self) -> bool {
        match (self.question(), self.state()) {
            (Some(q), Some(s)) => s.cursor >= q.options.len(),
            _ => true,
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> FormKey {
        let Some(q) = self.questions.get(self.current).cloned() else {
            return FormKey::Ignored;
        };
        let on_other = self.on_other();
        let Some(st) = self.states.get_mut(self.current) else {
            return FormKey::Ignored;
        };
        let n = q.options.len();
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Up => st.cursor = st.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => st.cursor = (st.cursor + 1).min(n),
            KeyCode::Left if !on_other && self.current > 0 => {
                self.current -= 1;
                self.answers.truncate(self.current);
            }
            KeyCode::Char(c @ '1'..='9') if plain && !on_other => {
                let i = c as usize - '1' as usize;
                if i >= n {
                    return FormKey::Handled;
                }
                st.cursor = i;
                if q.multi_select {
                    toggle(&mut st.chosen, i);
                } else {
                    return self.answer(q.options[i].label.clone());
                }
            }
            KeyCode::Char(' ') if plain && !on_other && q.multi_select => {
                toggle(&mut st.chosen, st.cursor);
            }
            KeyCode::Enter => {
                let text = st.other.text().trim().to_owned();
                let answer = if q.multi_select {
                    let mut parts: Vec<String> = st
                        .chosen
                        .iter()
                        .filter_map(|&i| q.options.get(i).map(|c| c.label.clone()))
                        .collect();
                    if !text.is_empty() {
                        parts.push(text);
                    }
                    if parts.is_empty()
                        && let Some(c) = q.options.get(st.cursor)
                    {
                        parts.push(c.label.clone());
                    }
                    parts.join(", ")
                } else if on_other {
                    text
                } else {
                    q.options
                        .get(st.cursor)
                        .map(|c| c.label.clone())
                        .unwrap_or_default()
                };
                if answer.is_empty() {
                    return FormKey::Handled;
                }
                return self.answer(answer);
            }
            _ => {
                // Typing anywhere writes the free-text answer.
                if !on_other && matches!(key.code, KeyCode::Char(_)) && plain {
                    st.cursor = n;
                }
                if !edit_line(&mut st.other, key) {
                    return FormKey::Ignored;
                }
                if !st.other.is_empty() {
                    st.cursor = n;
                }
            }
        }
        FormKey::Handled
    }

    fn answer(&mut self, answer: String) -> FormKey {
        self.answers.truncate(self.current);
        self.answers.push(answer);
        self.current += 1;
        if self.current >= self.questions.len() {
            FormKey::Done(std::mem::take(&mut self.answers))
        } else {
            FormKey::Handled
        }
    }
}

fn toggle(set: &mut BTreeSet<usize>, i: usize) {
    if !set.remove(&i) {
        set.insert(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::questions::parse;
    use serde_json::json;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn form() -> QuestionForm {
        QuestionForm::new(parse(&json!({"questions": [
            {"question": "Which db?", "options": [{"label": "Postgres"}, {"label": "SQLite"}]},
            {"question": "Features?", "multiSelect": true,
             "options": [{"label": "auth"}, {"label": "search"}, {"label": "export"}]},
            {"question": "Name?"}
        ]})))
    }

    #[test]
    fn digits_pick_space_toggles_text_is_free() {
        let mut f = form();
        assert_eq!(f.key(key(KeyCode::Char('2'))), FormKey::Handled);
        assert_eq!(f.current, 1);
        f.key(key(KeyCode::Char('1')));
        f.key(key(KeyCode::Down));
        f.key(key(KeyCode::Down));
        f.key(key(KeyCode::Char(' ')));
        assert_eq!(f.key(key(KeyCode::Enter)), FormKey::Handled);
        for c in "roo".chars() {
            f.key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            f.key(key(KeyCode::Enter)),
            FormKey::Done(vec!["SQLite".into(), "auth, export".into(), "roo".into()])
        );
    }

    #[test]
    fn enter_takes_the_option_under_the_cursor() {
        let mut f = QuestionForm::new(parse(&json!([{"question": "Go?",
            "options": [{"label": "yes"}, {"label": "no"}]}])));
        f.key(key(KeyCode::Down));
        assert_eq!(f.key(key(KeyCode::Enter)), FormKey::Done(vec!["no".into()]));
    }

    #[test]
    fn typing_on_an_option_switches_to_free_text() {
        let mut f = QuestionForm::new(parse(&json!([{"question": "Go?",
            "options": [{"label": "yes"}]}])));
        f.key(key(KeyCode::Char('m')));
        assert!(f.on_other());
        assert_eq!(f.key(key(KeyCode::Enter)), FormKey::Done(vec!["m".into()]));
    }

    #[test]
    fn an_empty_free_text_answer_is_not_sent() {
        let mut f = QuestionForm::new(parse(&json!(["Name?"])));
        assert_eq!(f.key(key(KeyCode::Enter)), FormKey::Handled);
        assert_eq!(f.current, 0);
    }
}
