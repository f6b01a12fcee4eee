//! Bookkeeping of command process groups (DESIGN.md §2): every group a tool spawns is a
//! row while it runs, so a daemon restarting after a crash first kills the groups its
//! predecessor left running — no command keeps running unobserved or runs twice.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::AgentError;
use crate::store::Store;
use crate::tools::{ProcessRecorder, kill_group};

enum Change {
    Started {
        pgid: i32,
        session_id: String,
        command: String,
    },
    Finished {
        pgid: i32,
    },
}

/// Records the groups of one session; changes are written in order by one task.
#[derive(Debug)]
pub struct SessionProcesses {
    pub session_id: String,
    tx: mpsc::UnboundedSender<Change>,
    running: Arc<Mutex<HashSet<i32>>>,
}

impl std::fmt::Debug for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Started { pgid, .. } => write!(f, "started {pgid}"),
            Change::Finished { pgid } => write!(f, "finished {pgid}"),
        }
    }
}

impl ProcessRecorder for SessionProcesses {
    fn started(&self, pgid: i32, command: &str) {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(pgid);
        let _ = self.tx.send(Change::Started {
            pgid,
            session_id: self.session_id.clone(),
            command: command.to_string(),
        });
    }

    fn finished(&self, pgid: i32) {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&pgid);
        let _ = self.tx.send(Change::Finished { pgid });
    }
}

/// The writer of process-group rows.
pub struct ProcessBook {
    store: Store,
    tx: mpsc::UnboundedSender<Change>,
    /// The groups running now, known the moment they start (the rows follow a moment
    /// later): the RPC layer refuses to be driven from inside them.
    running: Arc<Mutex<HashSet<i32>>>,
}

impl ProcessBook {
    /// Starts the writer task (needs a tokio runtime).
    pub fn start(store: Store) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Change>();
        let boot = boot_id();
        let writer = store.clone();
        tokio::spawn(async move {
            let store = writer;
            while let Some(change) = rx.recv().await {
                let r = match change {
                    Change::Started {
                        pgid,
                        session_id,
                        command,
                    } => {
                        store
                            .record_process_group(pgid, &session_id, &command, &boot)
                            .await
                    }
                    Change::Finished { pgid } => store.forget_process_group(pgid).await,
                };
                if let Err(e) = r {
                    tracing::error!("cannot record a process group: {e}");
                }
            }
        });
        ProcessBook {
            store,
            tx,
            running: Arc::default(),
        }
    }

    /// The process groups of commands running now.
    pub fn running_groups(&self) -> HashSet<i32> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Kills the process groups a crashed predecessor left running (this boot only).
    pub async fn kill_leftovers(&self) -> Result<(), AgentError> {
        let boot = boot_id();
        for row in self.store.process_groups().await? {
            if row.boot_id == boot && !boot.is_empty() {
                let pgid = row.pgid as i32;
                tracing::warn!(pgid, session = %row.session_id, command = %row.command, "killing a command left running by the previous daemon");
                let _ = tokio::task::spawn_blocking(move || kill_group(pgid)).await;
            }
            self.store.forget_process_group(row.pgid as i32).await?;
        }
        Ok(())
    }

    pub fn for_session(&self, session_id: &str) -> Arc<dyn ProcessRecorder> {
        Arc::new(SessionProcesses {
            session_id: session_id.to_string(),
            tx: self.tx.clone(),
            running: self.running.clone(),
        })
    }
}

/// This boot of the machine: process ids of another boot mean nothing now.
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}
