//! Error classification: HTTP statuses, in-stream error events, context overflow.

use super::*;

fn ctx() -> ErrorContext {
    ErrorContext::test("anthropic")
}

#[test]
fn status_classification() {
    let c = ctx();
    let e = c.status_error(
        401,
        None,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    );
    assert_eq!(e.kind(), "auth");
    assert!(!e.is_retryable());
    assert_eq!(
        e.to_string(),
        "anthropic rejected the request (HTTP 401: invalid x-api-key): check ANTHROPIC_API_KEY"
    );
    let e = c.status_error(429, Some(Duration::from_secs(3)), "slow down");
    assert_eq!(
        (e.kind(), e.retry_after()),
        ("rate_limited", Some(Duration::from_secs(3)))
    );
    assert!(e.is_retryable());
    assert_eq!(c.status_error(529, None, "").kind(), "overloaded");
    assert_eq!(
        c.status_error(503, None, "<html>\n bad\n</html>").kind(),
        "overloaded"
    );
    assert_eq!(c.status_error(502, None, "").kind(), "server_error");
    assert_eq!(c.status_error(404, None, "").kind(), "invalid_request");
    assert_eq!(c.status_error(400, None, "{}").kind(), "invalid_request");
    let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    assert_eq!(c.status_error(429, None, quota).kind(), "auth");
}

#[test]
fn context_overflow_is_recognised_first() {
    let c = ctx();
    let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
    assert_eq!(
        c.status_error(400, None, anthropic).kind(),
        "context_overflow"
    );
    let openai = r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    assert_eq!(c.status_error(400, None, openai).kind(), "context_overflow");
    assert_eq!(
        c.status_error(413, None, "too large").kind(),
        "context_overflow"
    );
    // A rate limit that mentions tokens is still a rate limit.
    assert_eq!(
        c.status_error(429, None, "too many tokens per minute")
            .kind(),
        "rate_limited"
    );
}

#[test]
fn stream_error_classification() {
    let c = ctx();
    let v: Value = serde_json::from_str(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )
    .unwrap();
    let e = c.event_error(&v);
    assert_eq!(e.kind(), "overloaded");
    assert!(e.is_retryable());
    assert!(e.to_string().contains("overloaded_error: Overloaded"));
    let v: Value = serde_json::from_str(r#"{"error":{"message":"weird"}}"#).unwrap();
    assert_eq!(c.event_error(&v).kind(), "stream");
}

#[test]
fn exhausted_keeps_kind_and_message() {
    let inner = LlmError::Network {
        url: "http://127.0.0.1:9/v1/messages".into(),
        detail: "connection refused".into(),
        hint: "check that the server is running and ANTHROPIC_BASE_URL is right".into(),
    };
    let e = LlmError::RetriesExhausted {
        attempts: 5,
        last: Box::new(inner),
    };
    assert_eq!(e.kind(), "network");
    assert!(!e.is_retryable());
    assert_eq!(
        e.to_string(),
        "gave up after 5 attempts: cannot reach http://127.0.0.1:9/v1/messages (connection refused): check that the server is running and ANTHROPIC_BASE_URL is right"
    );
}

#[test]
fn one_line_collapses_and_caps() {
    assert_eq!(one_line(" a\n b\t c "), "a b c");
    assert_eq!(one_line(&"é".repeat(400)).chars().count(), 301);
}

/// Real error bodies of Anthropic, OpenAI, DeepSeek, llama.cpp's server and vLLM, and
/// the recovery category each one ends in (issue 15, item 1).
#[test]
fn real_error_bodies_land_in_their_recovery_category() {
    use crate::recovery::Category::{self, *};
    let table: &[(&str, u16, &str, Category)] = &[
        (
            "anthropic",
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
            RateLimited,
        ),
        (
            "anthropic",
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            Overloaded,
        ),
        (
            "anthropic",
            500,
            r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
            ServerError,
        ),
        (
            "anthropic",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#,
            ContextOverflow,
        ),
        (
            "anthropic",
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
            ContextOverflow,
        ),
        (
            "anthropic",
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            Auth,
        ),
        (
            "anthropic",
            404,
            r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-nonexistent"}}"#,
            BadRequest,
        ),
        (
            "anthropic",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed"}}"#,
            BadRequest,
        ),
        (
            "openai",
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            ContextOverflow,
        ),
        (
            "openai",
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
            RateLimited,
        ),
        (
            "openai",
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            Auth,
        ),
        (
            "openai",
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-xx. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            Auth,
        ),
        (
            "openai",
            404,
            r#"{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
            BadRequest,
        ),
        (
            "openai",
            503,
            r#"{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}"#,
            Overloaded,
        ),
        (
            "deepseek",
            400,
            r#"{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70212 tokens (70212 in the messages, 0 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#,
            ContextOverflow,
        ),
        (
            "deepseek",
            422,
            r#"{"error":{"message":"Failed to deserialize the JSON body into the target type: messages[1]: missing field `content`","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#,
            BadRequest,
        ),
        (
            "deepseek",
            503,
            r#"{"error":{"message":"Server overloaded, please retry shortly.","type":"service_unavailable_error","param":null,"code":"service_unavailable"}}"#,
            Overloaded,
        ),
        (
            "llama.cpp",
            400,
            r#"{"error":{"code":400,"message":"request (8206 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8206,"n_ctx":8192}}"#,
            ContextOverflow,
        ),
        (
            "llama.cpp",
            503,
            r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
            Overloaded,
        ),
        (
            "vllm",
            400,
            r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
            ContextOverflow,
        ),
        (
            "vllm",
            404,
            r#"{"object":"error","message":"The model `llama-3` does not exist.","type":"NotFoundError","param":null,"code":404}"#,
            BadRequest,
        ),
    ];
    for (provider, status, body, expected) in table {
        let error = ErrorContext::test(provider).status_error(*status, None, body);
        assert_eq!(
            Category::of_llm(&error),
            Some(*expected),
            "{provider} {status}: {error}"
        );
    }
    // Mid-stream: Anthropic's overloaded event, an OpenAI-compatible error chunk.
    let c = ctx();
    let overloaded =
        c.event_error(&serde_json::json!({"type": "overloaded_error", "message": "Overloaded"}));
    assert_eq!(Category::of_llm(&overloaded), Some(Overloaded));
    let overflow = c.event_error(
        &serde_json::json!({"message": "context_length_exceeded", "type": "invalid_request_error"}),
    );
    assert_eq!(Category::of_llm(&overflow), Some(ContextOverflow));
}
