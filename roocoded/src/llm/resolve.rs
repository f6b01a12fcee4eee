//! Model resolution: a spec (`anthropic/claude-sonnet-4-5`, `openai/gpt-4.1`,
//! `deepseek/deepseek-chat` for a provider from the config, an alias such as `sonnet`)
//! becomes a ready provider with its price and context window. Keys and base URLs come
//! from the client's environment snapshot, never from the daemon's own environment.

use std::sync::Arc;

use roocode_protocol::session::ClientEnv;

use super::anthropic::{self, AnthropicAuth, AnthropicProvider};
use super::error::{ErrorContext, LlmError};
use super::openai::{self, OpenAiProvider};
use super::{Price, Provider, pricing};
use crate::config::{Config, ProviderConfig, ProviderKind};

/// The model used when neither `ROOCODE_MODEL` nor the config names one.
pub const DEFAULT_MODEL: &str = "anthropic/claude-sonnet-4-5";

/// A model ready to call.
#[derive(Clone)]
pub struct ResolvedModel {
    /// Normalised spec, `provider/model` (`anthropic/claude-sonnet-4-5`).
    pub spec: String,
    /// Provider name as written in the spec (`anthropic`, `openai`, `deepseek`).
    pub provider_name: String,
    /// Wire protocol, `anthropic` or `openai`.
    pub protocol: &'static str,
    /// Provider-side model name.
    pub model: String,
    pub provider: Arc<dyn Provider>,
    pub context_window: u64,
    /// `None` when the model's price is unknown.
    pub price: Option<Price>,
}

impl std::fmt::Debug for ResolvedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedModel")
            .field("spec", &self.spec)
            .field("protocol", &self.protocol)
            .field("model", &self.model)
            .field("context_window", &self.context_window)
            .field("price", &self.price)
            .finish_non_exhaustive()
    }
}

/// The spec to use: `ROOCODE_MODEL` from the client, else the config's `model:`, else
/// [`DEFAULT_MODEL`].
pub fn model_spec(env: &ClientEnv, config: &Config) -> String {
    env.get("ROOCODE_MODEL")
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .or(config.model())
        .unwrap_or(DEFAULT_MODEL)
        .to_string()
}

/// Checks that `spec` names a known provider and a model, without needing a key (for
/// `/model` and `session.create`, which must not depend on the caller's environment).
pub fn check_model_spec(spec: &str, config: &Config) -> Result<(), LlmError> {
    provider_model(spec, config).map(|_| ())
}

/// The context window the agent loop budgets `spec` with (aliases expanded, the
/// config's `context.window_tokens` first), without needing a key: what `/context`
/// and anything else that shows a window must use, so they agree with the loop.
pub fn context_window(spec: &str, config: &Config) -> Result<u64, LlmError> {
    provider_model(spec, config).map(|model| window_of(&model, config))
}

/// The provider-side model `spec` names (its alias expanded), checked against the
/// config but not against any key.
fn provider_model(spec: &str, config: &Config) -> Result<String, LlmError> {
    let spec = spec.trim();
    let (provider_name, model) = split_spec(spec)?;
    let settings = provider_settings(&provider_name, config)?;
    let model = expand_alias(settings.kind, settings.builtin, &model);
    if model.is_empty() {
        return Err(LlmError::Config(format!(
            "model `{spec}` names no model: write it as {provider_name}/<model>"
        )));
    }
    Ok(model)
}

/// The window of a provider-side model: the config's `context.window_tokens`, else
/// the known window of the model.
fn window_of(model: &str, config: &Config) -> u64 {
    config
        .window_tokens()
        .unwrap_or_else(|| pricing::context_window(model))
}

/// Resolves `spec` with the client's environment and the config.
pub fn resolve_model(
    spec: &str,
    env: &ClientEnv,
    config: &Config,
    http: &reqwest::Client,
) -> Result<ResolvedModel, LlmError> {
    let spec = spec.trim();
    let (provider_name, model) = split_spec(spec)?;
    let settings = provider_settings(&provider_name, config)?;
    let model = expand_alias(settings.kind, settings.builtin, &model);
    if model.is_empty() {
        return Err(LlmError::Config(format!(
            "model `{spec}` names no model: write it as {provider_name}/<model>"
        )));
    }
    let env_var = |name: &str| env.get(name).map(str::trim).filter(|v| !v.is_empty());

    let base_env = format!("{}_BASE_URL", env_prefix(&provider_name));
    let default_base = match settings.kind {
        ProviderKind::Anthropic => anthropic::DEFAULT_BASE_URL,
        ProviderKind::Openai => openai::DEFAULT_BASE_URL,
    };
    let (base_url, base_source) = match (env_var(&base_env), settings.base_url.as_deref()) {
        (Some(url), _) => (url.to_string(), Some(base_env.clone())),
        (None, Some(url)) => (
            url.trim().to_string(),
            Some(format!("providers.{provider_name}.base_url in config.yaml")),
        ),
        (None, None) if settings.builtin => (default_base.to_string(), None),
        (None, None) => {
            return Err(LlmError::Config(format!(
                "provider `{provider_name}` has no base_url: set providers.{provider_name}.base_url in config.yaml or {base_env}"
            )));
        }
    };
    let mut base_url = base_url.trim_end_matches('/').to_string();
    if settings.kind == ProviderKind::Anthropic {
        // The Anthropic base has no /v1; accept one written by habit.
        if let Some(stripped) = base_url.strip_suffix("/v1") {
            base_url = stripped.to_string();
        }
    }
    let custom_base = base_url != default_base;
    let network_hint = match &base_source {
        Some(source) => format!("check that the server is running and {source} is right"),
        None => format!("check your network connection, or set {base_env}"),
    };

    let key_var = settings.api_key_env.clone();
    let key = key_var.as_deref().and_then(env_var).map(str::to_string);
    let key_hint = key_var.clone().unwrap_or_else(|| "the API key".to_string());
    let errors = ErrorContext {
        provider: provider_name.clone(),
        key_hint,
    };

    let provider: Arc<dyn Provider> = match settings.kind {
        ProviderKind::Anthropic => {
            let auth = match (key, env_var("ANTHROPIC_AUTH_TOKEN")) {
                (Some(key), _) => AnthropicAuth::ApiKey(key),
                (None, Some(token)) if settings.builtin => AnthropicAuth::Bearer(token.to_string()),
                _ => {
                    return Err(LlmError::MissingKey {
                        var: key_var.unwrap_or_else(|| "ANTHROPIC_API_KEY".to_string()),
                    });
                }
            };
            Arc::new(AnthropicProvider::new(
                http.clone(),
                &base_url,
                auth,
                errors,
                network_hint,
            ))
        }
        ProviderKind::Openai => {
            // A key is optional for local servers: required only for the default URL,
            // or when the config names the variable that must hold it.
            let required = !custom_base || (!settings.builtin && settings.api_key_env.is_some());
            if key.is_none() && required {
                return Err(LlmError::MissingKey {
                    var: key_var.unwrap_or_else(|| "OPENAI_API_KEY".to_string()),
                });
            }
            Arc::new(OpenAiProvider::new(
                http.clone(),
                &base_url,
                key,
                errors,
                network_hint,
            ))
        }
    };

    let price = config
        .prices
        .get(&model)
        .or_else(|| config.prices.get(&format!("{provider_name}/{model}")))
        .map(|p| Price {
            input: p.input,
            output: p.output,
            cache_read: p.cache_read.unwrap_or(p.input),
            cache_write: p.cache_write.unwrap_or(p.input),
        })
        .or_else(|| pricing::price(&model));
    Ok(ResolvedModel {
        spec: format!("{provider_name}/{model}"),
        provider_name,
        protocol: provider.protocol(),
        context_window: window_of(&model, config),
        model,
        provider,
        price,
    })
}

/// Where a provider lives and how it authenticates.
struct Settings {
    kind: ProviderKind,
    base_url: Option<String>,
    api_key_env: Option<String>,
    /// `anthropic` or `openai` (defaults exist for them).
    builtin: bool,
}

fn provider_settings(name: &str, config: &Config) -> Result<Settings, LlmError> {
    let builtin_kind = match name {
        "anthropic" => Some(ProviderKind::Anthropic),
        "openai" => Some(ProviderKind::Openai),
        _ => None,
    };
    let default_key = |kind: ProviderKind| match kind {
        ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
        ProviderKind::Openai => "OPENAI_API_KEY",
    };
    match (config.providers.get(name), builtin_kind) {
        (
            Some(ProviderConfig {
                kind,
                base_url,
                api_key_env,
            }),
            builtin,
        ) => Ok(Settings {
            kind: *kind,
            base_url: base_url.clone(),
            api_key_env: api_key_env.clone().or_else(|| {
                // Built-in names keep their usual key; so does any anthropic endpoint.
                (builtin.is_some() || *kind == ProviderKind::Anthropic)
                    .then(|| default_key(*kind).to_string())
            }),
            builtin: builtin.is_some(),
        }),
        (None, Some(kind)) => Ok(Settings {
            kind,
            base_url: None,
            api_key_env: Some(default_key(kind).to_string()),
            builtin: true,
        }),
        (None, None) => {
            let known: Vec<&str> = config.providers.keys().map(String::as_str).collect();
            let extra = match known.is_empty() {
                true => String::new(),
                false => format!(" (configured: {})", known.join(", ")),
            };
            Err(LlmError::Config(format!(
                "unknown provider `{name}`{extra}: use anthropic/<model> or openai/<model>, or add providers.{name} to config.yaml"
            )))
        }
    }
}

/// `provider/model`, a bare alias (`sonnet` → anthropic) or a bare model name whose
/// family is obvious (`claude-*`, `gpt-*`, `o1`/`o3`/`o4-*`).
fn split_spec(spec: &str) -> Result<(String, String), LlmError> {
    if spec.is_empty() {
        return Err(LlmError::Config(format!(
            "no model is configured: set ROOCODE_MODEL (e.g. {DEFAULT_MODEL}) or `model:` in config.yaml"
        )));
    }
    if let Some((provider, model)) = spec.split_once('/') {
        return Ok((provider.trim().to_string(), model.trim().to_string()));
    }
    let lower = spec.to_lowercase();
    let provider = match lower.as_str() {
        "inherit" => {
            return Err(LlmError::Config(
                "model `inherit` means the parent agent's model; resolve it to that model's spec first".to_string(),
            ));
        }
        "haiku" | "sonnet" | "opus" => "anthropic",
        m if m.starts_with("claude") => "anthropic",
        m if m.starts_with("gpt-")
            || ["o1", "o3", "o4"]
                .iter()
                .any(|p| m == *p || m.starts_with(&format!("{p}-"))) =>
        {
            "openai"
        }
        _ => {
            return Err(LlmError::Config(format!(
                "model `{spec}` does not say its provider: write it as anthropic/{spec}, openai/{spec} or <provider from config.yaml>/{spec}"
            )));
        }
    };
    Ok((provider.to_string(), spec.to_string()))
}

/// `haiku`/`sonnet`/`opus` per provider; other names are kept as they are.
fn expand_alias(kind: ProviderKind, builtin: bool, model: &str) -> String {
    let alias = model.to_lowercase();
    let expanded = match (kind, builtin, alias.as_str()) {
        (ProviderKind::Anthropic, _, "haiku") => "claude-haiku-4-5",
        (ProviderKind::Anthropic, _, "sonnet") => "claude-sonnet-4-5",
        (ProviderKind::Anthropic, _, "opus") => "claude-opus-4-5",
        (ProviderKind::Openai, true, "haiku") => "gpt-4.1-mini",
        (ProviderKind::Openai, true, "sonnet") => "gpt-4.1",
        (ProviderKind::Openai, true, "opus") => "o3",
        _ => model,
    };
    expanded.to_string()
}

/// `deepseek` → `DEEPSEEK`, `my-llm` → `MY_LLM`.
fn env_prefix(provider: &str) -> String {
    provider
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_uppercase(),
            false => '_',
        })
        .collect()
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
