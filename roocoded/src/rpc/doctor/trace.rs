//! The doctor's trace check: whether the raw request and response bodies of model calls
//! are kept (`trace.bodies`, on by default). They hold the user's code and prompts, so
//! `doctor` says plainly whether this project's sessions keep them, under which cap,
//! and how much all kept bodies take now — with how to turn them off or remove them.

use std::path::Path;

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};

use crate::agent::Engine;
use crate::config::Config;

/// The check for the project at `root` (none: the settings cannot be known).
pub(super) async fn check(engine: &Engine, root: Option<&Path>) -> DoctorCheck {
    let config = root.and_then(|root| engine.config(root).ok());
    engine.recorder().flush().await;
    let kept = engine.store().bodies_bytes().await.ok();
    describe(config.as_ref(), kept)
}

/// The sentence for `config` (`None`: unreadable) with `kept` bytes of bodies stored.
fn describe(config: Option<&Config>, kept: Option<u64>) -> DoctorCheck {
    let stored = match kept {
        Some(0) => "none are stored now".to_string(),
        Some(bytes) => format!(
            "{} are stored now (roocode-cli prune removes old ones; deleting a session removes its own)",
            crate::disk_usage::human(bytes)
        ),
        None => "what is stored could not be measured".to_string(),
    };
    match config.map(Config::trace_bodies_cap) {
        Some(Some(cap)) => DoctorCheck::new(
            "trace bodies",
            CheckStatus::Ok,
            format!(
                "kept: the raw request and response of every model call, with your code and prompts (secrets scrubbed by value), up to {} per session (trace.max_body_mb), so sessions can be replayed; {stored}. trace: {{bodies: false}} stops keeping them",
                crate::disk_usage::human(cap)
            ),
        ),
        Some(None) => DoctorCheck::new(
            "trace bodies",
            CheckStatus::Ok,
            format!(
                "not kept (trace.bodies: false): the sessions' conversations are in the database as always, but they cannot be replayed; {stored}"
            ),
        ),
        None => DoctorCheck::new(
            "trace bodies",
            CheckStatus::Warn,
            format!("unknown: the config could not be read (see the config check); {stored}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_says_plainly_whether_bodies_are_kept_and_how_much() {
        let on = describe(Some(&Config::default()), Some(3 * 1024 * 1024));
        assert_eq!(on.status, CheckStatus::Ok);
        assert!(on.detail.starts_with("kept"), "{}", on.detail);
        assert!(on.detail.contains("up to 50.0 MiB"), "{}", on.detail);
        assert!(on.detail.contains("3.0 MiB are stored"), "{}", on.detail);
        let mut config = Config::default();
        config.trace.bodies = Some(false);
        let off = describe(Some(&config), Some(0));
        assert!(off.detail.starts_with("not kept"), "{}", off.detail);
        assert!(off.detail.contains("none are stored"), "{}", off.detail);
        assert_eq!(describe(None, None).status, CheckStatus::Warn);
    }
}
