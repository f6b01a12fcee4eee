//! Tests of model resolution: providers, aliases, keys, base URLs, prices, windows.

use std::path::Path;

use super::*;

fn env(vars: &[(&str, &str)]) -> ClientEnv {
    ClientEnv {
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn resolve(spec: &str, vars: &[(&str, &str)], config: &Config) -> Result<ResolvedModel, LlmError> {
    resolve_model(spec, &env(vars), config, &reqwest::Client::new())
}

fn config(yaml: &str) -> Config {
    Config::parse(Path::new("config.yaml"), yaml).unwrap()
}

#[test]
fn anthropic_with_key_alias_price_and_window() {
    let m = resolve("sonnet", &[("ANTHROPIC_API_KEY", "k")], &Config::default()).unwrap();
    assert_eq!(m.spec, "anthropic/claude-sonnet-4-5");
    assert_eq!(
        (m.protocol(), m.model.as_str()),
        ("anthropic", "claude-sonnet-4-5")
    );
    assert_eq!(
        m.provider.endpoint(),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(m.context_window, 200_000);
    assert_eq!(m.price.unwrap().input, 3.0);
    let m = resolve(
        "anthropic/haiku",
        &[("ANTHROPIC_API_KEY", "k")],
        &Config::default(),
    )
    .unwrap();
    assert_eq!(m.model, "claude-haiku-4-5");
}

#[test]
fn missing_keys_name_the_variable() {
    let e = resolve("anthropic/claude-sonnet-4-5", &[], &Config::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ANTHROPIC_API_KEY is not set: export it, or point ROOCODE_MODEL at another provider"
    );
    assert_eq!(e.kind(), "auth");
    assert!(!e.is_retryable());
    let e = resolve("openai/gpt-4.1", &[], &Config::default()).unwrap_err();
    assert!(
        e.to_string().starts_with("OPENAI_API_KEY is not set"),
        "{e}"
    );
    // An Anthropic gateway token is enough.
    assert!(resolve("opus", &[("ANTHROPIC_AUTH_TOKEN", "t")], &Config::default()).is_ok());
}

#[test]
fn base_urls_come_from_the_client_env() {
    let m = resolve(
        "anthropic/claude-sonnet-4-5",
        &[
            ("ANTHROPIC_API_KEY", "k"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080/v1/"),
        ],
        &Config::default(),
    )
    .unwrap();
    assert_eq!(m.provider.endpoint(), "http://127.0.0.1:8080/v1/messages");
    // A custom OpenAI-compatible base needs no key (llama.cpp, Ollama).
    let m = resolve(
        "openai/qwen2.5-coder",
        &[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")],
        &Config::default(),
    )
    .unwrap();
    assert_eq!(
        m.provider.endpoint(),
        "http://127.0.0.1:8080/v1/chat/completions"
    );
    assert_eq!(m.protocol(), "openai");
    assert_eq!(m.price, None, "unknown model: unknown price, not zero");
    assert_eq!(m.context_window, 128_000);
}

#[test]
fn custom_provider_from_config() {
    let c = config(
        "providers:\n  deepseek: {type: openai, base_url: 'https://api.deepseek.com/v1', api_key_env: DEEPSEEK_API_KEY}\n",
    );
    let e = resolve("deepseek/deepseek-chat", &[], &c).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("DEEPSEEK_API_KEY is not set: export it"),
        "{e}"
    );
    let m = resolve("deepseek/deepseek-chat", &[("DEEPSEEK_API_KEY", "k")], &c).unwrap();
    assert_eq!(m.spec, "deepseek/deepseek-chat");
    assert_eq!(m.provider_name, "deepseek");
    assert_eq!(
        m.provider.endpoint(),
        "https://api.deepseek.com/v1/chat/completions"
    );
    assert_eq!(m.price.unwrap().output, 0.42);
    // The client's DEEPSEEK_BASE_URL overrides the config.
    let m = resolve(
        "deepseek/deepseek-chat",
        &[
            ("DEEPSEEK_API_KEY", "k"),
            ("DEEPSEEK_BASE_URL", "http://127.0.0.1:9/v1"),
        ],
        &c,
    )
    .unwrap();
    assert_eq!(
        m.provider.endpoint(),
        "http://127.0.0.1:9/v1/chat/completions"
    );
}

#[test]
fn local_provider_without_key_and_overrides() {
    let c = config(
        "providers:\n  local: {type: openai, base_url: 'http://127.0.0.1:11434/v1'}\n\
         context: {window_tokens: 32000}\nprices:\n  llama3: {input: 0, output: 0}\n",
    );
    let m = resolve("local/llama3", &[], &c).unwrap();
    assert_eq!(m.context_window, 32_000);
    assert_eq!(m.price.unwrap().output, 0.0);
}

#[test]
fn bad_specs_are_config_errors() {
    let e = resolve("nope/model", &[], &Config::default()).unwrap_err();
    assert_eq!(e.kind(), "config");
    assert!(e.to_string().contains("unknown provider `nope`"), "{e}");
    let e = resolve("mystery-model", &[], &Config::default()).unwrap_err();
    assert!(e.to_string().contains("anthropic/mystery-model"), "{e}");
    assert_eq!(
        resolve("", &[], &Config::default()).unwrap_err().kind(),
        "config"
    );
    let c = config("providers:\n  x: {type: openai}\n");
    let e = resolve("x/m", &[], &c).unwrap_err();
    assert!(e.to_string().contains("providers.x.base_url"), "{e}");
    // Bare model names whose family is obvious.
    let m = resolve("gpt-4.1", &[("OPENAI_API_KEY", "k")], &Config::default()).unwrap();
    assert_eq!(m.spec, "openai/gpt-4.1");
}

#[test]
fn spec_precedence() {
    let c = config("model: openai/gpt-4.1\n");
    assert_eq!(model_spec(&env(&[]), &Config::default()), DEFAULT_MODEL);
    assert_eq!(model_spec(&env(&[]), &c), "openai/gpt-4.1");
    assert_eq!(
        model_spec(&env(&[("ROOCODE_MODEL", "anthropic/claude-haiku-4-5")]), &c),
        "anthropic/claude-haiku-4-5"
    );
}

#[test]
fn context_window_reads_aliases_as_resolution_does_without_a_key() {
    for spec in [
        "anthropic/sonnet",
        "sonnet",
        "anthropic/claude-sonnet-4-5",
        "openai/opus",
    ] {
        let key = [("ANTHROPIC_API_KEY", "k"), ("OPENAI_API_KEY", "k")];
        let resolved = resolve(spec, &key, &Config::default()).unwrap();
        assert_eq!(
            context_window(spec, &Config::default()).unwrap(),
            resolved.context_window,
            "{spec}"
        );
    }
    assert_eq!(
        context_window("anthropic/sonnet", &Config::default()).unwrap(),
        200_000
    );
    let c = config("context: {window_tokens: 32000}\n");
    assert_eq!(context_window("anthropic/sonnet", &c).unwrap(), 32_000);
    let e = context_window("nope/model", &Config::default()).unwrap_err();
    assert_eq!(e.kind(), "config");
}

#[test]
fn tiers_map_onto_the_parents_provider() {
    let none = Config::default();
    assert_eq!(
        tier_spec("anthropic/claude-sonnet-4-5", "haiku", &none).as_deref(),
        Some("anthropic/claude-haiku-4-5")
    );
    assert_eq!(
        tier_spec("openai/gpt-4.1", "haiku", &none).as_deref(),
        Some("openai/gpt-4.1-mini")
    );
    assert_eq!(
        tier_spec("openai/gpt-4.1", "opus", &none).as_deref(),
        Some("openai/o3")
    );
    let custom = config(
        "providers:\n  deepseek: {type: openai, base_url: 'http://127.0.0.1:9/v1'}\n  \
         proxy: {type: anthropic, base_url: 'http://127.0.0.1:9'}\n",
    );
    // An OpenAI-compatible endpoint has no tiers: the caller keeps the parent's model.
    assert_eq!(tier_spec("deepseek/deepseek-chat", "haiku", &custom), None);
    // An Anthropic endpoint of the user's serves Anthropic's models under its own name.
    assert_eq!(
        tier_spec("proxy/claude-sonnet-4-5", "haiku", &custom).as_deref(),
        Some("proxy/claude-haiku-4-5")
    );
    // A spec that does not parse is no tier either.
    assert_eq!(tier_spec("nowhere/x", "haiku", &none), None);
}
