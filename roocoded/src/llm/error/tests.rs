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
        "server_error"
    );
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
