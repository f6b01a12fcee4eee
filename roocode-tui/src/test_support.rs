//! Helpers of the unit tests: sessions, events, keys, and drawing an [`App`] on a
//! `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use roocode_protocol::session::CommandInfo;

use crate::app::App;
pub use crate::bench_support::{event as ev, session};

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn alt(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::ALT)
}

pub fn commands() -> Vec<CommandInfo> {
    [
        ("help", "List the slash commands"),
        ("clear", "Start the conversation afresh"),
        (
            "cost",
            "Tokens, cost and model time of the session and of each agent",
        ),
        ("mode", "Show or change the permission mode"),
        ("model", "Show or change the model"),
    ]
    .iter()
    .map(|(n, d)| CommandInfo {
        name: (*n).to_owned(),
        description: (*d).to_owned(),
        kind: "local".to_owned(),
        usage: None,
        source: None,
        shadowed_by: None,
    })
    .collect()
}

/// An app attached to session `S` (short id `7c5e01b2`).
pub fn app() -> App {
    let mut s = session("S", "fix the parser");
    s.short_id = "7c5e01b2".to_owned();
    App::new(s, commands())
}

/// Types `text` into the app.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

/// Draws `app` on a `width` × `height` test terminal.
pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap_or_else(|e| panic!("{e}"));
    t.draw(|f| app.draw(f)).unwrap_or_else(|e| panic!("{e}"));
    t
}

/// Where the screen shows `needle`: its column and row.
pub fn row_of(t: &Terminal<TestBackend>, needle: &str) -> (u16, u16) {
    let buf = t.backend().buffer();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        if let Some(i) = row.find(needle) {
            return (row[..i].chars().count() as u16, y);
        }
    }
    panic!("{needle:?} is not on screen:\n{}", t.backend());
}
