use std::time::Duration;

use roocode_protocol::session::ClientEnv;
use serde_json::json;

use super::*;
use crate::config::Config;
use crate::llm::resolve_model;

#[test]
fn overflow_errors_state_the_limit() {
    let cases: &[(&str, Option<u64>)] = &[
        // llama.cpp `llama-server`
        (
            "HTTP 400: request (8206 tokens) exceeds the available context size (8192 tokens), try increasing it",
            Some(8192),
        ),
        // OpenAI
        (
            "HTTP 400: This model's maximum context length is 128000 tokens. However, your messages resulted in 130491 tokens. Please reduce the length of the messages.",
            Some(128_000),
        ),
        // vLLM
        (
            "HTTP 400: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
            Some(4096),
        ),
        // DeepSeek
        (
            "HTTP 400: This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion).",
            Some(65_536),
        ),
        // Anthropic: no stated window in a form worth trusting
        (
            "HTTP 400: prompt is too long: 210000 tokens > 200000 maximum",
            None,
        ),
        ("HTTP 413: request too large", None),
        ("maximum context length is unknown tokens", None),
        ("available context size (0 tokens)", None),
    ];
    for (detail, want) in cases {
        assert_eq!(overflow_limit(detail), *want, "{detail}");
    }
}

#[test]
fn servers_report_their_window() {
    let llama = json!({"object": "list", "data": [
        {"id": "qwen.gguf", "object": "model", "meta": {"n_ctx_train": 32768, "n_ctx": 8192}}
    ]});
    assert_eq!(window_in_models(&llama, "whatever"), Some(8192));
    let vllm = json!({"object": "list", "data": [
        {"id": "other", "max_model_len": 1000},
        {"id": "Qwen/Qwen2.5-7B", "max_model_len": 32768}
    ]});
    assert_eq!(window_in_models(&vllm, "Qwen/Qwen2.5-7B"), Some(32768));
    assert_eq!(window_in_models(&vllm, "missing"), None);
    assert_eq!(
        window_in_models(&json!({"data": [{"id": "gpt-4o"}]}), "gpt-4o"),
        None
    );
    let ollama = json!({"parameters": "stop \"<|im_end|>\"\nnum_ctx                        4096",
                        "model_info": {"qwen2.context_length": 32768}});
    assert_eq!(window_in_ollama_show(&ollama), Some(4096));
    let ollama =
        json!({"model_info": {"general.architecture": "llama", "llama.context_length": 131072}});
    assert_eq!(window_in_ollama_show(&ollama), Some(131_072));
    assert_eq!(window_in_ollama_show(&json!({})), None);
}

#[test]
fn the_timeout_knob_bounds_or_disables_discovery() {
    assert_eq!(discovery_timeout(None), Some(DEFAULT_DISCOVERY_TIMEOUT));
    assert_eq!(
        discovery_timeout(Some("250")),
        Some(Duration::from_millis(250))
    );
    assert_eq!(discovery_timeout(Some("0")), None);
    assert_eq!(
        discovery_timeout(Some("soon")),
        Some(DEFAULT_DISCOVERY_TIMEOUT)
    );
}

fn local(base: &str, config: &Config) -> ResolvedModel {
    let env = ClientEnv {
        vars: [("OPENAI_BASE_URL".to_string(), base.to_string())]
            .into_iter()
            .collect(),
    };
    resolve_model("openai/local-llm", &env, config, &reqwest::Client::new()).unwrap()
}

/// A loopback server answering `GET /v1/models` as llama.cpp does, counting requests.
async fn llama_server(n_ctx: u64) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut buf = vec![0u8; 4096];
            let _ = stream.read(&mut buf).await;
            let body = json!({"data": [{"id": "m", "meta": {"n_ctx": n_ctx}}]}).to_string();
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    (format!("http://{addr}/v1"), hits)
}

#[tokio::test]
async fn discovery_asks_once_per_endpoint_and_model() {
    let (base, hits) = llama_server(8192).await;
    let config = Config::default();
    let mut model = local(&base, &config);
    assert_eq!(
        model.context_window,
        crate::llm::pricing::DEFAULT_CONTEXT_WINDOW
    );
    let http = reqwest::Client::new();
    discover(&mut model, &http, Duration::from_secs(5)).await;
    assert_eq!(model.context_window, 8192);
    // The next resolution knows it already; discovery does not ask again.
    let mut again = local(&base, &config);
    assert_eq!(again.context_window, 8192);
    discover(&mut again, &http, Duration::from_secs(5)).await;
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(
        crate::llm::context_window("openai/local-llm", &config).unwrap(),
        8192
    );
    // An overflow error's limit wins over what the server reported.
    assert!(learn(&mut again, 4096));
    assert_eq!(local(&base, &config).context_window, 4096);
}

#[tokio::test]
async fn the_config_wins_and_silent_servers_change_nothing() {
    let sized = Config::parse(
        std::path::Path::new("c.yaml"),
        "context: {window_tokens: 4000}\n",
    )
    .unwrap();
    let (base, hits) = llama_server(8192).await;
    let mut model = local(&base, &sized);
    assert!(!model.window_discoverable);
    discover(&mut model, &reqwest::Client::new(), Duration::from_secs(5)).await;
    assert_eq!(model.context_window, 4000);
    assert!(!learn(&mut model, 2048));
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);

    // Nothing listens: the default stands, and the turn is not failed.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let mut model = local(&dead, &Config::default());
    discover(&mut model, &reqwest::Client::new(), Duration::from_secs(5)).await;
    assert_eq!(
        model.context_window,
        crate::llm::pricing::DEFAULT_CONTEXT_WINDOW
    );

    // The official endpoint is never asked.
    let env = ClientEnv {
        vars: [("OPENAI_API_KEY".to_string(), "sk".to_string())]
            .into_iter()
            .collect(),
    };
    let official = resolve_model(
        "openai/gpt-4o",
        &env,
        &Config::default(),
        &reqwest::Client::new(),
    )
    .unwrap();
    assert!(!official.window_discoverable);
}
