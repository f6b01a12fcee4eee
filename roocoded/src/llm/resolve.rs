//! Model resolution: a spec (`anthropic/claude-sonnet-4-5`, `openai/gpt-4.1`,
//! `deepseek/deepseek-chat` for a provider from the config, an alias such as `sonnet`)
//! becomes a ready provider with its price and context window. Keys and base URLs come
//! from the client's environment snapshot, never from the daemon's own environment.
//! [`resolve_model`], [`check_model_spec`] and [`context_window`] read a spec the same
//! way ([`Spec::parse`]), so an alias means one model everywhere.

use std::sync::Arc;

use roocode_protocol::session::ClientEnv;

use super::error::{ErrorContext, LlmError};
use super::provider::{Auth, Provider};
use super::wire::{ANTHROPIC_BASE_URL, OPENAI_BASE_URL, WireFormat};
use super::{Price, pricing};
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
    /// Provider-side model name.
    pub model: String,
    pub provider: Arc<Provider>,
    pub context_window: u64,
    /// The base URL requests go to (no trailing `/`): with the model, the key of what
    /// is known of the window ([`super::window`]).
    pub base_url: String,
    /// The window may be found from the server or learned from its errors: a custom
    /// OpenAI-compatible endpoint, and no `context.window_tokens` in the config.
    pub window_discoverable: bool,
    /// `None` when the model's price is unknown.
    pub price: Option<Price>,
}

impl std::fmt::Debug for ResolvedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedModel")
            .field("spec", &self.spec)
            .field("format", &self.provider.format())
            .field("model", &self.model)
            .field("context_window", &self.context_window)
            .field("price", &self.price)
            .finish_non_exhaustive()
    }
}

impl ResolvedModel {
    /// The wire format's name, `anthropic` or `openai`.
    pub fn protocol(&self) -> &'static str {
        self.provider.format().name()
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
    Spec::parse(spec, config).map(|_| ())
}

/// The context window the agent loop budgets `spec` with (aliases expanded, the
/// config's `context.window_tokens` first), without needing a key: what `/context`
/// and anything else that shows a window must use, so they agree with the loop.
/// A window discovered from or learned of the model's server this daemon's life counts
/// too (the last one seen for the spec, at any endpoint).
pub fn context_window(spec: &str, config: &Config) -> Result<u64, LlmError> {
    Spec::parse(spec, config).map(|s| {
        let known = (config.window_tokens().is_none() && s.settings.kind == ProviderKind::Openai)
            .then(|| super::window::known_for_spec(&format!("{}/{}", s.provider_name, s.model)))
            .flatten();
        known.unwrap_or_else(|| window_of(&s.model, config))
    })
}

/// The spec of the model of `tier` (`haiku`, `sonnet`, `opus`) at the provider of
/// `parent_spec`, when that provider has such tiers (Anthropic's models on any
/// Anthropic endpoint, OpenAI's on OpenAI's own); `None` when it has none (a custom
/// OpenAI-compatible endpoint), so the caller keeps the parent's model.
pub fn tier_spec(parent_spec: &str, tier: &str, config: &Config) -> Option<String> {
    let spec = Spec::parse(parent_spec, config).ok()?;
    let expanded = expand_alias(spec.settings.kind, spec.settings.builtin, tier);
    (expanded != tier).then(|| format!("{}/{expanded}", spec.provider_name))
}

/// Resolves `spec` with the client's environment and the config.
pub fn resolve_model(
    spec: &str,
    env: &ClientEnv,
    config: &Config,
    http: &reqwest::Client,
) -> Result<ResolvedModel, LlmError> {
    let spec = Spec::parse(spec, config)?;
    let env_var = |name: &str| env.get(name).map(str::trim).filter(|v| !v.is_empty());
    let base = spec.base_url(&env_var)?;
    let format = match spec.settings.kind {
        ProviderKind::Anthropic => WireFormat::Anthropic,
        ProviderKind::Openai => WireFormat::openai_for(&base.url),
    };
    let auth = spec.auth(&env_var, base.custom)?;
    let errors = ErrorContext {
        provider: spec.provider_name.clone(),
        key_hint: spec
            .settings
            .api_key_env
            .clone()
            .unwrap_or_else(|| "the API key".to_string()),
    };
    let provider = Provider::new(http.clone(), format, &base.url, auth, errors, base.hint);
    let window_discoverable = config.window_tokens().is_none()
        && spec.settings.kind == ProviderKind::Openai
        && base.custom;
    let context_window = window_discoverable
        .then(|| super::window::known(&base.url, &spec.model))
        .flatten()
        .unwrap_or_else(|| window_of(&spec.model, config));
    Ok(ResolvedModel {
        spec: format!("{}/{}", spec.provider_name, spec.model),
        price: price_of(&spec.provider_name, &spec.model, config),
        context_window,
        base_url: base.url,
        window_discoverable,
        provider_name: spec.provider_name,
        model: spec.model,
        provider: Arc::new(provider),
    })
}

/// The price of `model`: the config's (by bare or full name), else the table's.
fn price_of(provider_name: &str, model: &str, config: &Config) -> Option<Price> {
    config
        .prices
        .get(model)
        .or_else(|| config.prices.get(&format!("{provider_name}/{model}")))
        .map(|p| Price {
            input: p.input,
            output: p.output,
            cache_read: p.cache_read.unwrap_or(p.input),
            cache_write: p.cache_write.unwrap_or(p.input),
        })
        .or_else(|| pricing::price(model))
}

/// The window of `model` (aliases already expanded): the config's, else the table's.
fn window_of(model: &str, config: &Config) -> u64 {
    config
        .window_tokens()
        .unwrap_or_else(|| pricing::context_window(model))
}

/// A spec split, its provider found and its alias expanded; no key looked at yet.
struct Spec {
    provider_name: String,
    /// Provider-side model name, never empty.
    model: String,
    settings: Settings,
}

/// The base URL requests go to, and what to say when it cannot be reached.
struct Base {
    /// Without a trailing `/` (nor, for Anthropic, `/v1`).
    url: String,
    /// Not the format's default URL.
    custom: bool,
    hint: String,
}

impl Spec {
    fn parse(spec: &str, config: &Config) -> Result<Self, LlmError> {
        let spec = spec.trim();
        let (provider_name, model) = split_spec(spec)?;
        let settings = provider_settings(&provider_name, config)?;
        let model = expand_alias(settings.kind, settings.builtin, &model);
        if model.is_empty() {
            return Err(LlmError::Config(format!(
                "model `{spec}` names no model: write it as {provider_name}/<model>"
            )));
        }
        Ok(Spec {
            provider_name,
            model,
            settings,
        })
    }

    /// The credentials from the client's environment. Anthropic wants a key, or a
    /// gateway token for the built-in provider; an OpenAI-compatible key is optional for
    /// local servers: required only for the default URL, or when the config names the
    /// variable that must hold it.
    fn auth<'e>(
        &self,
        env_var: &impl Fn(&str) -> Option<&'e str>,
        custom_base: bool,
    ) -> Result<Auth, LlmError> {
        let key_var = self.settings.api_key_env.as_deref();
        let key = key_var.and_then(env_var).map(str::to_string);
        let missing = |default: &str| LlmError::MissingKey {
            var: key_var.unwrap_or(default).to_string(),
        };
        match self.settings.kind {
            ProviderKind::Anthropic => match (key, env_var("ANTHROPIC_AUTH_TOKEN")) {
                (Some(key), _) => Ok(Auth::ApiKey(key)),
                (None, Some(token)) if self.settings.builtin => Ok(Auth::Bearer(token.to_string())),
                _ => Err(missing("ANTHROPIC_API_KEY")),
            },
            ProviderKind::Openai => {
                let required = !custom_base || (!self.settings.builtin && key_var.is_some());
                match key {
                    Some(key) => Ok(Auth::Bearer(key)),
                    None if required => Err(missing("OPENAI_API_KEY")),
                    None => Ok(Auth::None),
                }
            }
        }
    }

    /// `<PROVIDER>_BASE_URL` from the client, else the config's, else the default of
    /// a built-in provider.
    fn base_url<'e>(&self, env_var: &impl Fn(&str) -> Option<&'e str>) -> Result<Base, LlmError> {
        let name = &self.provider_name;
        let base_env = format!("{}_BASE_URL", env_prefix(name));
        let default_base = match self.settings.kind {
            ProviderKind::Anthropic => ANTHROPIC_BASE_URL,
            ProviderKind::Openai => OPENAI_BASE_URL,
        };
        let (url, source) = match (env_var(&base_env), self.settings.base_url.as_deref()) {
            (Some(url), _) => (url.to_string(), Some(base_env.clone())),
            (None, Some(url)) => (
                url.trim().to_string(),
                Some(format!("providers.{name}.base_url in config.yaml")),
            ),
            (None, None) if self.settings.builtin => (default_base.to_string(), None),
            (None, None) => {
                return Err(LlmError::Config(format!(
                    "provider `{name}` has no base_url: set providers.{name}.base_url in config.yaml or {base_env}"
                )));
            }
        };
        let mut url = url.trim_end_matches('/');
        if self.settings.kind == ProviderKind::Anthropic {
            // The Anthropic base has no /v1; accept one written by habit.
            url = url.strip_suffix("/v1").unwrap_or(url);
        }
        let hint = match &source {
            Some(source) => format!("check that the server is running and {source} is right"),
            None => format!("check your network connection, or set {base_env}"),
        };
        Ok(Base {
            custom: url != default_base,
            url: url.to_string(),
            hint,
        })
    }
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
mod tests;
