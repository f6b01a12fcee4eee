//! One async lock per workflow (a loop's id, an orchestrator's session): the paths that
//! read a loop's or a graph's state and write it back (a round's end, a stop, a resume;
//! a dispatch, a completion, the reminder) take it, so two of them never interleave.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OwnedMutexGuard;

/// The locks by key.
#[derive(Debug, Default)]
pub struct WorkflowLocks {
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl WorkflowLocks {
    /// Waits for `key`'s lock. A lock nobody holds or waits for is dropped from the map
    /// as the next one is taken, so the map stays as small as the workflows at work.
    pub async fn lock(&self, key: &str) -> OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
            locks.retain(|k, l| k == key || Arc::strong_count(l) > 1);
            locks.entry(key.to_string()).or_default().clone()
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_holder_per_key_and_idle_locks_go() {
        let locks = WorkflowLocks::default();
        let a = locks.lock("a").await;
        let b = locks.lock("b").await;
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(20), locks.lock("a"));
        assert!(waiting.await.is_err(), "a is held");
        drop(a);
        drop(b);
        let _c = locks.lock("c").await;
        assert_eq!(
            locks.locks.lock().unwrap().len(),
            1,
            "idle locks were dropped"
        );
    }
}
