//! Between model calls, the turn looks at its config files again ([`TurnConfig::recheck`]):
//! a permission-relevant change that appeared while it ran is shown to the user as a
//! permission request (tool `Config`, the changes in its input) and applied only if
//! approved, whoever wrote it; in `dontAsk` it is refused without asking. A file that
//! turned invalid is reported once and the turn goes on with its last good config.

use roocode_protocol::event::{ErrorInfo, EventPayload};
use serde_json::json;

use super::Turn;
use crate::agent::AgentError;
use crate::agent::approvals::{PermissionAnswer, PermissionAsk};
use crate::agent::turn_config::{FileCheck, TurnConfig};
use crate::config::Guarded;
use crate::permission::Mode;

/// The pseudo tool name of a config change request.
pub const CONFIG_TOOL: &str = "Config";

impl Turn<'_> {
    /// Acts on what changed in the config files since the last look; false if the turn
    /// was cancelled while the user was asked.
    pub(super) async fn recheck_config(
        &self,
        mode: Mode,
        config: &TurnConfig,
    ) -> Result<bool, AgentError> {
        let (changes, files, newer) = match config.recheck() {
            FileCheck::Same => return Ok(true),
            FileCheck::Invalid(message) => {
                tracing::warn!("a config file turned invalid during the turn: {message}");
                self.notice(
                    "config_invalid",
                    format!(
                        "{message}\nThis turn goes on with the configuration it started with; \
                         fix the file and the next turn reads it again"
                    ),
                )
                .await?;
                return Ok(true);
            }
            FileCheck::Changed {
                changes,
                files,
                newer,
            } => (changes, files, newer),
        };
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let listed = changes.join("\n");
        if mode == Mode::DontAsk {
            tracing::warn!(%listed, "permission settings changed during a dontAsk turn: not applied");
            if let Ok(mut slot) = self.rt.refused_config.lock() {
                *slot = Some(config.refuse(&newer));
            }
            self.notice(
                "config_change_refused",
                format!(
                    "the permission settings changed during the turn and were not applied, \
                     as the session is in dontAsk mode, which never asks: a turn in another \
                     mode asks you about them, and a later edit made between turns applies:\n{listed}"
                ),
            )
            .await?;
            return Ok(true);
        }
        self.ask_about_change(&changes, &files, &newer, config)
            .await
    }

    /// Asks the user about a change of the permission settings (tool `Config`) and
    /// applies it if they approve; false if the turn was cancelled meanwhile.
    async fn ask_about_change(
        &self,
        changes: &[String],
        files: &[String],
        newer: &Guarded,
        config: &TurnConfig,
    ) -> Result<bool, AgentError> {
        let listed = changes.join("\n");
        let summary = format!(
            "permission settings changed during the turn: {}",
            changes.join("; ")
        );
        let reason = format!(
            "The permission settings in {} changed while this turn runs (by you, or by \
             something the agent ran):\n{listed}\nAllow applies them to this turn now; \
             deny keeps the settings the turn started with (the next turn reads the files again).",
            files.join(", ")
        );
        let input = json!({"change": summary, "changes": changes, "files": files});
        let call_id = format!("config-{}", uuid::Uuid::now_v7());
        let ask = PermissionAsk {
            session_id: self.id(),
            call_id: &call_id,
            tool: CONFIG_TOOL,
            input: &input,
            summary: &summary,
            reason: &reason,
        };
        let answer = self
            .engine
            .approvals
            .ask_permission(ask, &self.cancel)
            .await?;
        let refused = match answer {
            PermissionAnswer::Allow | PermissionAnswer::AllowAlways => {
                tracing::info!(%listed, "permission settings changed during the turn: approved");
                config.apply(newer);
                None
            }
            PermissionAnswer::Deny { .. } => {
                tracing::info!(%listed, "permission settings changed during the turn: refused");
                Some(config.refuse(newer))
            }
            // Unanswered: the next turn asks again.
            PermissionAnswer::Cancelled => Some(config.refuse(newer)),
        };
        if let Ok(mut slot) = self.rt.refused_config.lock() {
            *slot = refused;
        }
        Ok(answer != PermissionAnswer::Cancelled)
    }

    /// An `error` event that does not end the turn.
    pub(super) async fn notice(&self, kind: &str, message: String) -> Result<(), AgentError> {
        self.emit(EventPayload::Error {
            error: ErrorInfo {
                kind: kind.into(),
                message,
            },
        })
        .await
    }
}
