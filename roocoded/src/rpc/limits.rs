//! Bounds on what clients can make the daemon hold: message size, nesting depth,
//! connections, subscriptions per connection, and the buffer of a client that does not
//! read. Each has an environment knob (read once at start), so a test can reach it.

use std::time::Duration;

/// The bounds the RPC server enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest message a client may send, in bytes (`ROOCODE_RPC_MAX_MESSAGE`).
    pub max_message: usize,
    /// Largest response the daemon sends, in bytes (history and export are paged).
    pub max_response: usize,
    /// Deepest nesting of objects and arrays in a message (`ROOCODE_RPC_MAX_DEPTH`).
    pub max_depth: usize,
    /// Connections served at once; more are closed at accept
    /// (`ROOCODE_RPC_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Subscriptions one connection may hold (`ROOCODE_RPC_MAX_SUBSCRIPTIONS`).
    pub max_subscriptions: u32,
    /// Messages queued for a client before it counts as not reading
    /// (`ROOCODE_RPC_CLIENT_BUFFER`).
    pub client_buffer: usize,
    /// How long the queue may stay full before the client is dropped
    /// (`ROOCODE_RPC_CLIENT_STALL_MS`).
    pub client_stall: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 64 << 20,
            max_response: 64 << 20,
            max_depth: 64,
            max_connections: 256,
            max_subscriptions: 1024,
            client_buffer: 1024,
            client_stall: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// The defaults, overridden by the environment knobs.
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let d = Limits::default();
        let num = |name: &str, default: u64| -> u64 {
            match var(name).map(|v| v.trim().parse::<u64>()) {
                Some(Ok(n)) if n > 0 => n,
                Some(_) => {
                    tracing::warn!("{name} is not a positive integer; using {default}");
                    default
                }
                None => default,
            }
        };
        let size =
            |name, default: usize| usize::try_from(num(name, default as u64)).unwrap_or(default);
        Limits {
            max_message: size("ROOCODE_RPC_MAX_MESSAGE", d.max_message),
            max_response: d.max_response,
            max_depth: size("ROOCODE_RPC_MAX_DEPTH", d.max_depth),
            max_connections: size("ROOCODE_RPC_MAX_CONNECTIONS", d.max_connections),
            max_subscriptions: u32::try_from(num(
                "ROOCODE_RPC_MAX_SUBSCRIPTIONS",
                u64::from(d.max_subscriptions),
            ))
            .unwrap_or(d.max_subscriptions),
            client_buffer: size("ROOCODE_RPC_CLIENT_BUFFER", d.client_buffer),
            client_stall: Duration::from_millis(num(
                "ROOCODE_RPC_CLIENT_STALL_MS",
                d.client_stall.as_millis() as u64,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_override_and_nonsense_keeps_the_default() {
        let l = Limits::from_vars(|k| match k {
            "ROOCODE_RPC_MAX_DEPTH" => Some("7".into()),
            "ROOCODE_RPC_CLIENT_STALL_MS" => Some("250".into()),
            "ROOCODE_RPC_MAX_CONNECTIONS" => Some("zero".into()),
            "ROOCODE_RPC_CLIENT_BUFFER" => Some("0".into()),
            _ => None,
        });
        assert_eq!(l.max_depth, 7);
        assert_eq!(l.client_stall, Duration::from_millis(250));
        assert_eq!(l.max_connections, Limits::default().max_connections);
        assert_eq!(l.client_buffer, Limits::default().client_buffer);
    }
}
