//! Context windows of OpenAI-compatible servers the built-in table cannot know (a
//! llama.cpp `llama-server`, vLLM, Ollama), found two ways and kept in memory for the
//! daemon's life, per endpoint (base URL) and model:
//!
//! - **discovery** ([`discover`]): once per endpoint and model, a short bounded request
//!   to the server (llama.cpp's `GET /v1/models` → `data[].meta.n_ctx`, vLLM's
//!   `data[].max_model_len`, Ollama's `POST /api/show` → `model_info.<arch>.context_length`
//!   or `num_ctx` in `parameters`). A failure or a timeout only logs: the table's
//!   default stands.
//! - **learning** ([`learn`]): a context-overflow error that states the limit
//!   (`available context size (N tokens)`, `maximum context length is N tokens`) records
//!   N ([`overflow_limit`] reads it), which wins over what discovery said.
//!
//! `context.window_tokens` in the config wins over both (the resolver never asks).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::resolve::ResolvedModel;

/// How long discovery may take, by default (`ROOCODE_WINDOW_DISCOVERY_MS` in the
/// client's environment overrides it; `0` turns discovery off).
pub const DEFAULT_DISCOVERY_TIMEOUT: Duration = Duration::from_millis(1500);

/// What is known of one endpoint's model.
#[derive(Debug, Clone, Copy, Default)]
struct Known {
    /// Discovery ran (whatever it found): it never runs again for this key.
    discovered: bool,
    /// What the server reported.
    reported: Option<u64>,
    /// What an overflow error stated.
    learned: Option<u64>,
}

impl Known {
    fn window(&self) -> Option<u64> {
        self.learned.or(self.reported)
    }
}

/// `(base URL, model)` → what is known; the daemon's memory.
static KNOWN: LazyLock<Mutex<HashMap<(String, String), Known>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// `provider/model` → the last window found for it at any endpoint (for callers that
/// have no client environment, hence no base URL, such as `/context`).
static BY_SPEC: LazyLock<Mutex<HashMap<String, u64>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn with_known<T>(f: impl FnOnce(&mut HashMap<(String, String), Known>) -> T) -> T {
    f(&mut KNOWN.lock().unwrap_or_else(PoisonError::into_inner))
}

fn remember_spec(spec: &str, window: u64) {
    BY_SPEC
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(spec.to_string(), window);
}

/// The window known for `model` at `base_url`, if any.
pub(crate) fn known(base_url: &str, model: &str) -> Option<u64> {
    with_known(|k| {
        k.get(&(base_url.to_string(), model.to_string()))
            .and_then(Known::window)
    })
}

/// The last window known for `spec` (`provider/model`) at any endpoint.
pub(crate) fn known_for_spec(spec: &str) -> Option<u64> {
    BY_SPEC
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(spec)
        .copied()
}

/// Records the window an overflow error stated for `model` and applies it; `true` when
/// it changed what `model` budgets with. Only for models whose window may be found
/// (no `context.window_tokens`, a custom OpenAI-compatible endpoint).
pub fn learn(model: &mut ResolvedModel, window: u64) -> bool {
    if !model.window_discoverable || window == 0 {
        return false;
    }
    with_known(|k| {
        k.entry((model.base_url.clone(), model.model.clone()))
            .or_default()
            .learned = Some(window);
    });
    remember_spec(&model.spec, window);
    let changed = model.context_window != window;
    if changed {
        tracing::info!(model = %model.spec, window, "learned the context window from an overflow error");
    }
    model.context_window = window;
    changed
}

/// The timeout of discovery from the client's `ROOCODE_WINDOW_DISCOVERY_MS`, else the
/// default; `None` when it is `0` (off).
pub fn discovery_timeout(value: Option<&str>) -> Option<Duration> {
    let timeout = value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_DISCOVERY_TIMEOUT, Duration::from_millis);
    (!timeout.is_zero()).then_some(timeout)
}

/// Finds the window of `model` from its server once per endpoint and model (later
/// calls read the memory) and applies it. Never fails: a server that does not say, or
/// does not answer within `timeout`, leaves the window as it is.
pub async fn discover(model: &mut ResolvedModel, http: &reqwest::Client, timeout: Duration) {
    if !model.window_discoverable {
        return;
    }
    let key = (model.base_url.clone(), model.model.clone());
    let done = with_known(|k| k.get(&key).copied().unwrap_or_default());
    if !done.discovered {
        let reported = tokio::time::timeout(timeout, ask_server(http, &key.0, &key.1))
            .await
            .unwrap_or_else(|_| {
                tracing::debug!(base = %key.0, "context window discovery timed out");
                None
            });
        if let Some(window) = reported {
            tracing::info!(model = %model.spec, window, "discovered the context window");
        }
        with_known(|k| {
            let known = k.entry(key.clone()).or_default();
            known.discovered = true;
            known.reported = known.reported.or(reported);
        });
    }
    if let Some(window) = known(&key.0, &key.1) {
        remember_spec(&model.spec, window);
        model.context_window = window;
    }
}

/// llama.cpp and vLLM answer `GET <base>/models`; Ollama (whose OpenAI base ends in
/// `/v1`) `POST <root>/api/show`.
async fn ask_server(http: &reqwest::Client, base_url: &str, model: &str) -> Option<u64> {
    let models = async {
        let resp = http.get(format!("{base_url}/models")).send().await.ok()?;
        let body: Value = resp.error_for_status().ok()?.json().await.ok()?;
        window_in_models(&body, model)
    };
    if let Some(window) = models.await {
        return Some(window);
    }
    let root = base_url.strip_suffix("/v1").unwrap_or(base_url);
    let resp = http
        .post(format!("{root}/api/show"))
        .json(&serde_json::json!({"model": model}))
        .send()
        .await
        .ok()?;
    let body: Value = resp.error_for_status().ok()?.json().await.ok()?;
    window_in_ollama_show(&body)
}

/// The window in a `/v1/models` list: the entry named `model` (else the only one, as
/// llama.cpp names its model by file), `meta.n_ctx` (llama.cpp) or `max_model_len`
/// (vLLM).
pub fn window_in_models(body: &Value, model: &str) -> Option<u64> {
    let data = body.get("data")?.as_array()?;
    let entry = data
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (data.len() == 1).then(|| &data[0]))?;
    entry
        .pointer("/meta/n_ctx")
        .or_else(|| entry.get("max_model_len"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
}

/// The window in Ollama's `/api/show` answer: `num_ctx` in `parameters` (what the
/// server runs with) first, else `model_info.<arch>.context_length`.
pub fn window_in_ollama_show(body: &Value) -> Option<u64> {
    let num_ctx = body
        .get("parameters")
        .and_then(Value::as_str)
        .into_iter()
        .flat_map(str::lines)
        .find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("num_ctx"))
                .then(|| words.next()?.parse::<u64>().ok())
                .flatten()
        });
    num_ctx
        .or_else(|| {
            body.get("model_info")?
                .as_object()?
                .iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| v.as_u64())
        })
        .filter(|n| *n > 0)
}

/// The context size an overflow error states, if it does: llama.cpp's `available
/// context size (N tokens)`, OpenAI's, vLLM's and DeepSeek's `maximum context length
/// is N tokens`.
pub fn overflow_limit(detail: &str) -> Option<u64> {
    const PATTERNS: [&str; 3] = [
        "available context size (",
        "maximum context length is ",
        "context length of only ",
    ];
    let lower = detail.to_lowercase();
    PATTERNS.iter().find_map(|p| {
        let at = lower.find(p)? + p.len();
        let digits: String = lower[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok().filter(|n| *n > 0)
    })
}

#[cfg(test)]
mod tests;
