//! How the store spells protocol's enums in its TEXT columns (`sessions.status`,
//! `sessions.kind`, `sessions.mode`). The spellings are the database's, fixed by the
//! existing files: they must not change when a wire name does. A value this build does
//! not know reads as the safe default of its column (as the column's SQL default
//! says), never as an error, so a database written by a newer daemon still loads; the
//! wire's `Unknown` fallbacks are written as that default too (the engine never asks).

use roocode_protocol::Mode;
use roocode_protocol::session::{SessionKind, SessionStatus};

/// `sessions.status`.
pub(super) fn status_name(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::Idle | SessionStatus::Unknown => "idle",
        SessionStatus::Running => "running",
        SessionStatus::Interrupted => "interrupted",
    }
}

pub(super) fn status_from(name: &str) -> SessionStatus {
    match name {
        "running" => SessionStatus::Running,
        "interrupted" => SessionStatus::Interrupted,
        _ => SessionStatus::Idle,
    }
}

/// `sessions.kind`.
pub(super) fn kind_name(kind: SessionKind) -> &'static str {
    match kind {
        SessionKind::Main | SessionKind::Unknown => "main",
        SessionKind::SubAgent => "sub_agent",
        SessionKind::Teammate => "teammate",
    }
}

pub(super) fn kind_from(name: &str) -> SessionKind {
    match name {
        "sub_agent" => SessionKind::SubAgent,
        "teammate" => SessionKind::Teammate,
        _ => SessionKind::Main,
    }
}

/// `sessions.mode`: as configs and the wire spell it. A name this build does not know
/// is [`Mode::Unknown`], which the permission gate treats as `default` (it asks).
pub(super) fn mode_name(mode: Mode) -> &'static str {
    mode.as_str()
}

pub(super) fn mode_from(name: &str) -> Mode {
    Mode::parse(name).unwrap_or(Mode::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_as_written() {
        for s in [
            SessionStatus::Idle,
            SessionStatus::Running,
            SessionStatus::Interrupted,
        ] {
            assert_eq!(status_from(status_name(s)), s);
        }
        for k in [
            SessionKind::Main,
            SessionKind::SubAgent,
            SessionKind::Teammate,
        ] {
            assert_eq!(kind_from(kind_name(k)), k);
        }
        for m in Mode::ALL {
            assert_eq!(mode_from(mode_name(m)), m);
        }
    }

    #[test]
    fn the_database_spellings_are_the_existing_ones() {
        assert_eq!(status_name(SessionStatus::Interrupted), "interrupted");
        assert_eq!(kind_name(SessionKind::SubAgent), "sub_agent");
        assert_eq!(mode_name(Mode::AcceptEdits), "acceptEdits");
    }

    #[test]
    fn unknown_values_read_as_the_column_default() {
        assert_eq!(status_from("paused"), SessionStatus::Idle);
        assert_eq!(kind_from("swarm"), SessionKind::Main);
        assert_eq!(mode_from("yolo"), Mode::Unknown);
    }
}
