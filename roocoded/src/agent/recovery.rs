//! Recovery at start and interruption at stop: a turn that was running when the daemon
//! died (or stopped) ends `interrupted`, its context is repaired so every tool call has
//! a result, and the session waits for the user to continue it.

use std::time::Duration;

use roocode_protocol::event::{ErrorInfo, EventPayload, StopReason};
use roocode_protocol::session::SessionStatus;

use super::{AgentError, Engine};
use crate::context::chain;

/// Result text given to tool calls a daemon crash or stop left without one.
pub const INTERRUPTED_BY_DAEMON: &str = "Interrupted: the daemon stopped before this tool call completed. It may or may not have taken effect; check before repeating it.";

impl Engine {
    /// Repairs every session a previous daemon left running.
    pub async fn recover(&self) -> Result<(), AgentError> {
        self.processes.kill_leftovers().await?;
        for row in self
            .store
            .sessions_with_status(SessionStatus::Running)
            .await?
        {
            let mut context = self.store.context(&row.id).await?;
            let report = chain::repair(&mut context, INTERRUPTED_BY_DAEMON);
            if report.changed() {
                self.rewrite_context(&row.id, context).await?;
            }
            if let Some(turn_id) = &row.running_turn_id {
                let error = ErrorInfo {
                    kind: "interrupted".into(),
                    message: "the daemon stopped during this turn: send a message to continue"
                        .into(),
                };
                self.store
                    .finish_turn(turn_id, StopReason::Interrupted, Some(&error.message))
                    .await?;
                self.events
                    .append(
                        &row.id,
                        &row.id,
                        EventPayload::TurnCompleted {
                            turn_id: turn_id.clone(),
                            stop_reason: StopReason::Interrupted,
                            error: Some(error),
                        },
                    )
                    .await?;
            }
            self.store.expire_pending(&row.id).await?;
            self.store
                .set_session_status(&row.id, SessionStatus::Interrupted, None)
                .await?;
            tracing::info!(session = %row.id, repaired = ?report, "recovered an interrupted session");
        }
        Ok(())
    }

    /// Stops every running turn as `interrupted` and waits (bounded) for them to end.
    pub async fn shutdown(&self) {
        let runtimes = self.runtimes.all();
        for rt in &runtimes {
            let state = rt.state.lock().await;
            if let Some(running) = &state.running {
                running
                    .interrupted
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                running.cancel.cancel();
            }
        }
        self.tasks.close();
        if tokio::time::timeout(Duration::from_secs(5), self.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!("some turns did not stop in time; they will be recovered at next start");
        }
        // What the recorder still holds is written before the daemon goes.
        if tokio::time::timeout(Duration::from_secs(5), self.recorder.flush())
            .await
            .is_err()
        {
            tracing::warn!("the flight recorder could not write everything in time");
        }
        // Background shells die with the daemon; nothing runs unobserved.
        for rt in &runtimes {
            rt.shell.kill_all().await;
        }
        self.mcp.shutdown();
    }
}
