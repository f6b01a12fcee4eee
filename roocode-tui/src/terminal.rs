//! The terminal while the UI runs: raw mode, the alternate screen, mouse capture and
//! bracketed paste (so a pasted block never submits early), and the keyboard
//! enhancement that reports Shift+Enter where the terminal supports it. Restored on
//! drop and on panic, so a crash never leaves the user's shell unusable.

use std::io::stdout;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use ratatui::DefaultTerminal;

/// The UI's terminal; dropping it gives the terminal back.
pub struct Terminal {
    inner: DefaultTerminal,
    enhanced: bool,
}

impl Terminal {
    pub fn enter() -> anyhow::Result<Terminal> {
        // Installs a panic hook that restores the terminal before the message prints.
        let inner = ratatui::init();
        execute!(stdout(), EnableBracketedPaste, EnableMouseCapture)?;
        let enhanced = crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
        if enhanced {
            execute!(
                stdout(),
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
        }
        // ratatui's hook leaves raw mode and the alternate screen; before it, also turn
        // off what we turned on, or a crash would leave the shell printing mouse codes.
        let ratatui_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            give_back_input_modes(enhanced);
            ratatui_hook(info);
        }));
        Ok(Terminal { inner, enhanced })
    }

    pub fn draw(&mut self, f: impl FnOnce(&mut ratatui::Frame)) -> anyhow::Result<()> {
        self.inner.draw(f)?;
        Ok(())
    }
}

/// Turns off paste, mouse and keyboard-enhancement reporting.
fn give_back_input_modes(enhanced: bool) {
    if enhanced {
        let _ = execute!(stdout(), PopKeyboardEnhancementFlags);
    }
    let _ = execute!(stdout(), DisableBracketedPaste, DisableMouseCapture);
}

impl Drop for Terminal {
    fn drop(&mut self) {
        give_back_input_modes(self.enhanced);
        ratatui::restore();
    }
}
