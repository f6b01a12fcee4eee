//! `call_retrying` (and through it `llm::call_model`) against a scripted local HTTP server: retries, stream resets, no retry
//! on auth errors, cancellation while waiting and while streaming, unreachable servers.

use std::time::{Duration, Instant};

use roocode_protocol::content::{ContentBlock, Message};
use roocode_protocol::session::ClientEnv;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::config::Config;
use crate::llm::test_history::tool_spec;
use crate::llm::test_server::{Reply, TestServer};
use crate::llm::{ModelStopReason, resolve_model};

/// `spec` resolved with the client environment `vars`.
fn resolved(spec: &str, vars: &[(&str, &str)]) -> ResolvedModel {
    let env = ClientEnv {
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    resolve_model(spec, &env, &Config::default(), &reqwest::Client::new()).unwrap()
}

fn anthropic_model(base: &str) -> ResolvedModel {
    let vars = [
        ("ANTHROPIC_API_KEY", "sk-test"),
        ("ANTHROPIC_BASE_URL", base),
    ];
    resolved("anthropic/claude-sonnet-4-5", &vars)
}

fn openai_model(base: &str) -> ResolvedModel {
    resolved(
        "openai/local-model",
        &[("OPENAI_BASE_URL", &format!("{base}/v1"))],
    )
}

fn policy(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(1),
        ..RetryPolicy::default()
    }
}

fn request() -> ModelRequest<'static> {
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "sys".into(),
        messages: crate::llm::owned_messages(vec![Message::user_text("hi")]),
        tools: vec![tool_spec("Read", "Read a file", json!({"type": "object"}))],
        max_tokens: 1024,
    }
}

fn anthropic_text(parts: &[&str]) -> String {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for p in parts {
        s.push_str(&format!(
            "event: content_block_delta\ndata: {}\n\n",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}})
        ));
    }
    s
}

fn anthropic_end() -> &'static str {
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
     event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n\
     event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}

async fn call(
    model: &ResolvedModel,
    policy: &RetryPolicy,
    cancel: &CancellationToken,
) -> (Result<CallOutcome, LlmError>, Vec<Progress>) {
    let mut seen = Vec::new();
    let mut on_progress = |p: Progress| seen.push(p);
    let result = call_retrying(model, &request(), policy, cancel, &mut on_progress).await;
    (result, seen)
}

/// What a client shows: deltas, with everything before a reset discarded.
fn shown_text(progress: &[Progress]) -> String {
    let mut text = String::new();
    for p in progress {
        match p {
            Progress::TextDelta(t) => text.push_str(t),
            Progress::StreamReset => text.clear(),
            _ => {}
        }
    }
    text
}

#[tokio::test]
async fn rate_limited_then_success_retries_once() {
    let server = TestServer::start(vec![
        Reply::status(
            429,
            &[("retry-after", "0"), ("content-type", "application/json")],
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        ),
        Reply::sse(anthropic_text(&["Hello", " there"]) + anthropic_end()),
    ])
    .await;
    let model = anthropic_model(&server.url);
    let (result, progress) = call(&model, &policy(5), &CancellationToken::new()).await;
    let outcome = result.unwrap();
    assert_eq!(outcome.attempts, 2);
    assert_eq!(
        outcome.response.content,
        vec![ContentBlock::text("Hello there")]
    );
    assert_eq!(outcome.response.stop_reason, ModelStopReason::EndTurn);
    assert_eq!(outcome.response.usage.output_tokens, 5);
    assert!(outcome.response.usage.cost_usd.is_some());
    assert!(outcome.request_bytes > 0);
    let retries: Vec<&Progress> = progress
        .iter()
        .filter(|p| matches!(p, Progress::Retrying { .. }))
        .collect();
    assert_eq!(retries.len(), 1);
    let Progress::Retrying {
        attempt,
        max_attempts,
        delay_ms,
        reason,
    } = retries[0]
    else {
        unreachable!()
    };
    assert_eq!((*attempt, *max_attempts, *delay_ms), (2, 5, 0));
    assert!(reason.contains("429"), "{reason}");
    assert!(!progress.contains(&Progress::StreamReset));
    assert_eq!(shown_text(&progress), "Hello there");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let r = &requests[1];
    assert!(
        r.head.starts_with("POST /v1/messages HTTP/1.1"),
        "{}",
        r.head
    );
    assert_eq!(r.header("x-api-key").as_deref(), Some("sk-test"));
    assert_eq!(r.header("anthropic-version").as_deref(), Some("2023-06-01"));
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/json")
    );
    let body = r.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(outcome.request_bytes, r.body.len() as u64);
}

#[tokio::test]
async fn broken_stream_resets_then_full_text_once() {
    let server = TestServer::start(vec![
        Reply::Broken {
            body: anthropic_text(&["Hello", " wo"]),
        },
        Reply::sse(anthropic_text(&["Hello", " world"]) + anthropic_end()),
    ])
    .await;
    let model = anthropic_model(&server.url);
    let (result, progress) = call(&model, &policy(5), &CancellationToken::new()).await;
    let outcome = result.unwrap();
    assert_eq!(
        outcome.response.content,
        vec![ContentBlock::text("Hello world")]
    );
    let reset_at = progress
        .iter()
        .position(|p| *p == Progress::StreamReset)
        .expect("a stream reset");
    let retry_at = progress
        .iter()
        .position(|p| matches!(p, Progress::Retrying { .. }))
        .unwrap();
    assert!(
        reset_at < retry_at,
        "reset comes before the retry: {progress:?}"
    );
    assert_eq!(shown_text(&progress), "Hello world");
}

#[tokio::test]
async fn mid_stream_overloaded_error_is_retried() {
    let overloaded = anthropic_text(&["Hi"])
        + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let server = TestServer::start(vec![
        Reply::sse(overloaded),
        Reply::sse(anthropic_text(&["Hi!"]) + anthropic_end()),
    ])
    .await;
    let (result, progress) = call(
        &anthropic_model(&server.url),
        &policy(5),
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(
        result.unwrap().response.content,
        vec![ContentBlock::text("Hi!")]
    );
    assert!(
        progress.iter().any(
            |p| matches!(p, Progress::Retrying { reason, .. } if reason.contains("overloaded"))
        )
    );
    assert_eq!(shown_text(&progress), "Hi!");
}

#[tokio::test]
async fn unauthorized_is_not_retried() {
    let server = TestServer::start(vec![Reply::status(
        401,
        &[],
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )])
    .await;
    let (result, progress) = call(
        &anthropic_model(&server.url),
        &policy(5),
        &CancellationToken::new(),
    )
    .await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "auth");
    assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
    assert!(progress.is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn context_overflow_is_not_retried() {
    let server = TestServer::start(vec![Reply::status(
        400,
        &[],
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}"#,
    )])
    .await;
    let (result, _) = call(
        &anthropic_model(&server.url),
        &policy(5),
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(result.unwrap_err().kind(), "context_overflow");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let busy = || {
        Reply::status(
            529,
            &[],
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
    };
    let server = TestServer::start(vec![busy(), busy(), busy(), busy()]).await;
    let (result, progress) = call(
        &anthropic_model(&server.url),
        &policy(3),
        &CancellationToken::new(),
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, LlmError::RetriesExhausted { attempts: 3, .. }),
        "{err:?}"
    );
    assert_eq!(err.kind(), "overloaded");
    assert_eq!(progress.len(), 2);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn cancellation_during_the_wait_is_prompt() {
    let server = TestServer::start(vec![Reply::status(429, &[("retry-after", "30")], "{}")]).await;
    let model = anthropic_model(&server.url);
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let mut delays = Vec::new();
    let mut on_progress = |p: Progress| {
        if let Progress::Retrying { delay_ms, .. } = p {
            delays.push(delay_ms);
            token.cancel();
        }
    };
    let started = Instant::now();
    let result = call_retrying(&model, &request(), &policy(5), &cancel, &mut on_progress).await;
    assert_eq!(result.unwrap_err(), LlmError::Cancelled);
    assert_eq!(delays, [30_000]);
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn cancellation_during_the_stream_is_prompt() {
    let server = TestServer::start(vec![Reply::Hang {
        body: anthropic_text(&["partial"]),
    }])
    .await;
    let model = anthropic_model(&server.url);
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let mut on_progress = |p: Progress| {
        if matches!(p, Progress::TextDelta(_)) {
            token.cancel();
        }
    };
    let result = call_retrying(&model, &request(), &policy(5), &cancel, &mut on_progress).await;
    assert_eq!(result.unwrap_err(), LlmError::Cancelled);
}

#[tokio::test]
async fn unreachable_server_names_the_url_after_retries() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (result, progress) = call(
        &anthropic_model(&base),
        &policy(2),
        &CancellationToken::new(),
    )
    .await;
    let err = result.unwrap_err();
    assert_eq!(err.kind(), "network");
    let text = err.to_string();
    assert!(text.contains(&format!("{base}/v1/messages")), "{text}");
    assert!(text.contains("ANTHROPIC_BASE_URL"), "{text}");
    assert!(text.starts_with("gave up after 2 attempts"), "{text}");
    assert_eq!(progress.len(), 1);
}

#[tokio::test]
async fn openai_compatible_tool_call_without_key() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null,
            "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "Read", "arguments": ""}}]}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\":\"a\"}"}}]}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 7}}),
    ];
    let body: String = chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n";
    let server = TestServer::start(vec![Reply::sse(body)]).await;
    let model = openai_model(&server.url);
    let (result, _) = call(&model, &policy(5), &CancellationToken::new()).await;
    let response = result.unwrap().response;
    assert_eq!(
        response.content,
        vec![ContentBlock::ToolUse {
            id: "call_1".into(),
            name: "Read".into(),
            input: json!({"path": "a"}),
        }]
    );
    assert_eq!(response.stop_reason, ModelStopReason::ToolUse);
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (50, 7)
    );
    assert_eq!(response.usage.cost_usd, None);
    let r = &server.requests()[0];
    assert!(
        r.head.starts_with("POST /v1/chat/completions HTTP/1.1"),
        "{}",
        r.head
    );
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.json()["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn silent_stream_times_out_and_is_retried() {
    let server = TestServer::start(vec![
        Reply::Hang {
            body: anthropic_text(&["par"]),
        },
        Reply::sse(anthropic_text(&["full"]) + anthropic_end()),
    ])
    .await;
    let policy = RetryPolicy {
        stall_timeout: Duration::from_millis(200),
        ..policy(3)
    };
    let (result, progress) = call(
        &anthropic_model(&server.url),
        &policy,
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(
        result.unwrap().response.content,
        vec![ContentBlock::text("full")]
    );
    assert!(progress.contains(&Progress::StreamReset));
    assert!(
        progress
            .iter()
            .any(|p| matches!(p, Progress::Retrying { reason, .. } if reason.contains("no data")))
    );
    assert_eq!(shown_text(&progress), "full");
}

/// The spans a test run opened: name, parent's name and fields (recorded ones included).
mod spans {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Subscriber, subscriber::DefaultGuard};
    use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
    use tracing_subscriber::registry::LookupSpan;

    #[derive(Debug, Clone)]
    pub(super) struct Span {
        id: u64,
        pub name: &'static str,
        pub parent: Option<&'static str>,
        pub fields: BTreeMap<String, String>,
    }

    #[derive(Clone, Default)]
    pub(super) struct Spans(Arc<Mutex<Vec<Span>>>);

    impl Spans {
        /// Records the spans of this thread until the guard drops.
        pub(super) fn capture() -> (Self, DefaultGuard) {
            let spans = Spans::default();
            let subscriber = tracing_subscriber::registry().with(spans.clone());
            (spans, tracing::subscriber::set_default(subscriber))
        }

        pub(super) fn named(&self, name: &str) -> Vec<Span> {
            let all = self.0.lock().unwrap();
            all.iter().filter(|s| s.name == name).cloned().collect()
        }
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0
                .insert(field.name().to_string(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_string(), value.to_string());
        }
    }

    impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            let parent = ctx.span(id).and_then(|s| s.parent()).map(|p| p.name());
            let mut fields = BTreeMap::new();
            attrs.record(&mut Fields(&mut fields));
            self.0.lock().unwrap().push(Span {
                id: id.into_u64(),
                name: attrs.metadata().name(),
                parent,
                fields,
            });
        }

        fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
            let mut all = self.0.lock().unwrap();
            // Ids are reused once a span closes: the newest span with this id is open.
            if let Some(span) = all.iter_mut().rev().find(|s| s.id == id.into_u64()) {
                values.record(&mut Fields(&mut span.fields));
            }
        }
    }
}

#[tokio::test]
async fn the_call_and_each_attempt_have_their_own_span() {
    let server = TestServer::start(vec![
        Reply::status(
            429,
            &[("retry-after", "0")],
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        ),
        Reply::sse(anthropic_text(&["Hello"]) + anthropic_end()),
    ])
    .await;
    let (spans, _guard) = spans::Spans::capture();
    let (result, _) = call(
        &anthropic_model(&server.url),
        &policy(5),
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(result.unwrap().attempts, 2);

    let calls = spans.named("call_model");
    assert_eq!(calls.len(), 1, "{calls:?}");
    let field = |s: &spans::Span, k: &str| s.fields.get(k).cloned().unwrap_or_default();
    assert_eq!(field(&calls[0], "provider"), "anthropic");
    assert_eq!(field(&calls[0], "format"), "anthropic");
    assert_eq!(field(&calls[0], "model"), "claude-sonnet-4-5");
    assert_eq!(field(&calls[0], "attempts"), "2");

    let attempts = spans.named("model_attempt");
    let seen: Vec<(String, String, Option<&str>)> = attempts
        .iter()
        .map(|s| (field(s, "attempt"), field(s, "status"), s.parent))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("1".into(), "429".into(), Some("call_model")),
            ("2".into(), "200".into(), Some("call_model")),
        ]
    );
}
