//! HTTP plumbing of the provider: the default client, the error body of a failed
//! response, the innermost cause of a transport error, and `retry-after` parsing.

use std::time::Duration;

use futures_util::TryStreamExt;
use reqwest::header::HeaderMap;

use super::error::LlmError;

/// How long connecting to an endpoint may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A `reqwest::Client` suited to model calls: a connect timeout, no overall timeout
/// (streams are long; `call_model` watches for idle streams instead).
pub fn http_client() -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(concat!("roocode/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| {
            LlmError::Config(format!(
                "cannot set up the HTTP client: {}",
                error_chain(&e)
            ))
        })
}

/// Reads at most 64 KiB of an error body; a body that cannot be read is empty.
pub(crate) async fn read_error_body(response: reqwest::Response) -> String {
    const MAX: usize = 64 * 1024;
    let mut stream = response.bytes_stream();
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = stream.try_next().await {
        buf.extend_from_slice(&chunk);
        if buf.len() >= MAX {
            buf.truncate(MAX);
            break;
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The innermost cause of an error (e.g. `Connection refused (os error 111)`), which
/// says more than reqwest's `error sending request for url`.
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    match parts.len() {
        1 => parts.remove(0),
        _ => parts[1..].join(": "),
    }
}

/// `retry-after-ms`, or `retry-after` as seconds or an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, time::OffsetDateTime::now_utc())
}

pub(crate) fn parse_retry_after(value: &str, now: time::OffsetDateTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let at = time::PrimitiveDateTime::parse(value, format)
        .ok()?
        .assume_utc();
    let secs = (at - now).as_seconds_f64();
    Some(Duration::from_secs_f64(secs.max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_seconds_date_and_ms() {
        let now = time::macros::datetime!(2015-10-21 07:27:00 UTC);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("0", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
    }
}
