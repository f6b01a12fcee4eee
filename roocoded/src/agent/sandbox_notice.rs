//! The sandbox's warnings for a session, told once per daemon at its first turn: the
//! engine's side of [`crate::sandbox`]'s report (the sandbox layer knows nothing of
//! sessions or events).

use std::collections::BTreeMap;
use std::path::Path;

use std::sync::atomic::Ordering;

use super::Engine;
use super::runtime::SessionRuntime;
use crate::sandbox::{self, SandboxSettings};

/// At the first turn of a session (per daemon): one `error` event of kind `sandbox`
/// per warning of [`sandbox::report::session_warnings`] (commands less confined than bubblewrap
/// allows, or refused, or project settings ignored). Nothing when all is well. At the
/// turn's start rather than at `session.create`, so that the client following the turn
/// shows it.
pub(super) async fn announce(engine: &Engine, rt: &SessionRuntime) {
    if rt.sandbox_announced.swap(true, Ordering::Relaxed) {
        return;
    }
    let Ok(Some(row)) = engine.store().session(&rt.id).await else {
        return;
    };
    let root = Path::new(&row.root);
    let (Ok(config), Ok(settings)) = (
        engine.config(root),
        SandboxSettings::load(&engine.paths().user_dir, root),
    ) else {
        // The turn reports a broken config itself.
        return;
    };
    // The warnings depend on the mode, the machine and the files, not on the client.
    let sandbox = sandbox::for_session(
        engine.paths(),
        root,
        Path::new(&row.cwd),
        &BTreeMap::new(),
        &config,
        &settings,
    );
    for message in sandbox::report::session_warnings(&sandbox) {
        tracing::warn!(session = %row.id, "{message}");
        let ev = roocode_protocol::event::EventPayload::Error {
            error: roocode_protocol::event::ErrorInfo {
                kind: roocode_protocol::event::ErrorKind::Sandbox,
                message,
            },
        };
        if let Err(e) = engine.events().append(&row.id, &row.id, ev).await {
            tracing::error!("cannot record the sandbox warning: {e}");
        }
    }
}
