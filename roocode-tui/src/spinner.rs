//! The braille spinner shown beside running tool calls and in the status bar while a
//! turn runs; [`crate::app::App::on_tick`] advances it about ten times a second.

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner glyph for tick `tick`.
pub fn frame(tick: u64) -> &'static str {
    FRAMES[(tick % FRAMES.len() as u64) as usize]
}

/// The number of distinct frames (cache keys of animated lines stay small).
pub fn frame_index(tick: u64) -> u8 {
    (tick % FRAMES.len() as u64) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cycle() {
        assert_eq!(frame(0), frame(10));
        assert_ne!(frame(0), frame(1));
        assert_eq!(frame_index(13), 3);
    }
}
