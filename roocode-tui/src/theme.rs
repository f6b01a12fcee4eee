//! The colours and text styles of the TUI, in one place so every widget agrees.

use ratatui::style::{Color, Modifier, Style};

/// `> ` and the text of the user's messages.
pub const USER: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
/// Messages typed here or elsewhere that wait for the running turn.
pub const QUEUED: Style = Style::new()
    .fg(Color::DarkGray)
    .add_modifier(Modifier::ITALIC);
/// The model's reasoning.
pub const THINKING: Style = Style::new()
    .fg(Color::DarkGray)
    .add_modifier(Modifier::ITALIC);
/// Small notices (mode changed, retrying, compaction).
pub const DIM: Style = Style::new().fg(Color::DarkGray);
/// Errors.
pub const ERROR: Style = Style::new().fg(Color::Red);
/// Warnings and things waiting on the user.
pub const WARN: Style = Style::new().fg(Color::Yellow);
/// Success marks.
pub const OK: Style = Style::new().fg(Color::Green);
/// Tool names in tool lines.
pub const TOOL_NAME: Style = Style::new().add_modifier(Modifier::BOLD);

/// Markdown headings by level (1 first).
pub const HEADING1: Style = Style::new()
    .fg(Color::Magenta)
    .add_modifier(Modifier::BOLD)
    .add_modifier(Modifier::UNDERLINED);
pub const HEADING2: Style = Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD);
pub const HEADING: Style = Style::new().add_modifier(Modifier::BOLD);
/// `inline code`.
pub const CODE_INLINE: Style = Style::new().fg(Color::Yellow);
/// Background of fenced and indented code blocks.
pub const CODE_BG: Color = Color::Indexed(236);
pub const CODE_BLOCK: Style = Style::new().fg(Color::Gray).bg(CODE_BG);
pub const LINK: Style = Style::new()
    .fg(Color::Blue)
    .add_modifier(Modifier::UNDERLINED);
pub const QUOTE: Style = Style::new().fg(Color::DarkGray);

/// Unified diff lines.
pub const DIFF_ADD: Style = Style::new().fg(Color::Green);
pub const DIFF_DEL: Style = Style::new().fg(Color::Red);
pub const DIFF_HUNK: Style = Style::new().fg(Color::Cyan);
pub const DIFF_FILE: Style = Style::new().add_modifier(Modifier::BOLD);

/// Borders of dialogs and panels.
pub const BORDER: Style = Style::new().fg(Color::DarkGray);
pub const DIALOG_BORDER: Style = Style::new().fg(Color::Yellow);
/// The selected row of a list.
pub const SELECTED: Style = Style::new()
    .bg(Color::Indexed(238))
    .add_modifier(Modifier::BOLD);
/// Key names in hints.
pub const KEY: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
/// The status bar.
pub const STATUS: Style = Style::new().fg(Color::Gray).bg(Color::Indexed(235));
