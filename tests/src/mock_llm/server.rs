//! The HTTP side of the mock LLM: the accept loop (one hyper HTTP/1.1 connection task
//! per socket, all owned by a `JoinSet` so stopping the loop stops them), routing to
//! the two model endpoints, request recording and validation, and the non-streamed
//! responses (HTTP errors, "script exhausted", 400/404/405).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::script::Reply;
use super::state::{RecordedRequest, State};
use super::stream::{Ctx, ResponseBody, Shape, Usage};
use super::{anthropic, openai};

/// The message of the error answered when the queue is empty and there is no fallback.
pub const SCRIPT_EXHAUSTED: &str = "mock-llm: script exhausted";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Anthropic,
    OpenAi,
}

impl Protocol {
    fn of_path(path: &str) -> Option<Self> {
        match path {
            "/v1/messages" | "/messages" => Some(Self::Anthropic),
            "/v1/chat/completions" | "/chat/completions" => Some(Self::OpenAi),
            _ => None,
        }
    }

    fn error_body(self, status: u16, message: &str) -> Value {
        match self {
            Self::Anthropic => anthropic::error_body(status, message),
            Self::OpenAi => openai::error_body(status, message),
        }
    }
}

/// Serves connections until the task running this future is aborted.
pub(crate) async fn serve(listener: TcpListener, state: Arc<State>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Each streamed chunk leaves at once, as a provider's do: with
                    // Nagle's algorithm a chunk would wait for the client's (delayed)
                    // acknowledgement of the one before.
                    let _ = stream.set_nodelay(true);
                    let state = state.clone();
                    connections.spawn(async move {
                        let service = service_fn(move |req| handle(req, state.clone()));
                        // Client hang-ups and scripted disconnects end up here; both are
                        // expected.
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
                // E.g. out of file descriptors: back off instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<ResponseBody>, Infallible> {
    // Its head arrived: the client has made its request (what the mock does with the
    // body is the mock's time, not the client's).
    let at = state.started.elapsed();
    let wall_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let path = req.uri().path().to_owned();
    if let (Some(n_ctx), "/v1/models") = (state.llama_n_ctx, path.as_str()) {
        return Ok(json_response(200, &llama_models(n_ctx), None));
    }
    let Some(protocol) = Protocol::of_path(&path) else {
        let message = format!(
            "mock-llm: no endpoint {path} (use POST /v1/messages or POST /v1/chat/completions)"
        );
        return Ok(json_response(
            404,
            &json!({"error": {"message": message}}),
            None,
        ));
    };
    let method = req.method().clone();
    let mut headers = std::collections::BTreeMap::<String, String>::new();
    for (name, value) in req.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_owned())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let raw = match req.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => {
            let message = format!("mock-llm: cannot read the request body: {err}");
            return Ok(json_response(
                400,
                &protocol.error_body(400, &message),
                None,
            ));
        }
    };
    let parsed = serde_json::from_slice::<Value>(&raw);
    let problem = if method != Method::POST {
        Some((
            405,
            format!("mock-llm: {path} only accepts POST, not {method}"),
        ))
    } else {
        match &parsed {
            Err(err) => Some((400, format!("mock-llm: malformed JSON request body: {err}"))),
            Ok(value) => match protocol {
                Protocol::Anthropic => anthropic::validate(value),
                Protocol::OpenAi => openai::validate(value),
            }
            .err()
            .map(|msg| (400, format!("mock-llm: invalid request to {path}: {msg}")))
            .or_else(|| over_window(state.max_input_tokens, raw.len())),
        }
    };
    let request =
        parsed.unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&raw).into_owned()));
    // What the reply needs of the request, read before the request is recorded.
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock")
        .to_owned();
    let include_usage = openai::include_usage(&request);
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: path.clone(),
        headers,
        body: request,
        raw: raw.to_vec(),
        at,
        wall_ms,
    };
    let reply = state.record(recorded, problem.is_none());
    if let Some((status, message)) = problem {
        let tokens = raw.len() as u64 / 4;
        let over = message.starts_with("prompt is too long");
        if let Some(n_ctx) = state.llama_n_ctx.filter(|n| over && tokens > *n) {
            return Ok(json_response(400, &llama_overflow(tokens, n_ctx), None));
        }
        return Ok(json_response(
            status,
            &protocol.error_body(status, &message),
            None,
        ));
    }
    let Some(reply) = reply else {
        return Ok(json_response(
            500,
            &protocol.error_body(500, SCRIPT_EXHAUSTED),
            None,
        ));
    };

    if let Reply::Error {
        status,
        body,
        retry_after,
    } = &reply.reply
    {
        return Ok(error_reply(protocol, *status, body, retry_after.as_deref()));
    }
    let Some(shape) = Shape::of(&reply.reply) else {
        return Ok(json_response(
            500,
            &json!({"error": "mock-llm: unstreamable reply"}),
            None,
        ));
    };

    let ctx = Ctx {
        usage: Usage::of(&reply, &shape, raw.len()),
        shape,
        reply: &reply,
        model,
        seq: state.next_seq(),
        include_usage,
    };
    let plan = match protocol {
        Protocol::Anthropic => anthropic::render(&ctx),
        Protocol::OpenAi => openai::render(&ctx),
    };
    let body = plan.into_body(
        Duration::from_millis(reply.delay_ms_per_chunk),
        state.clone(),
    );
    let mut resp = Response::new(body);
    let headers = resp.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&format!("req_mock_{}", ctx.seq)) {
        headers.insert(HeaderName::from_static("request-id"), value);
    }
    Ok(resp)
}

/// llama.cpp's `GET /v1/models` answer for a model loaded with `n_ctx`.
fn llama_models(n_ctx: u64) -> Value {
    json!({"object": "list", "data": [{
        "id": "mock-llama", "object": "model", "created": 0, "owned_by": "llamacpp",
        "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 32768,
                 "n_embd": 2048, "n_params": 1_720_000_000_u64, "size": 1_000_000_000_u64,
                 "n_ctx": n_ctx}
    }]})
}

/// llama.cpp's refusal of a prompt over its context size, byte for byte its shape.
fn llama_overflow(tokens: u64, n_ctx: u64) -> Value {
    json!({"error": {
        "code": 400,
        "message": format!("request ({tokens} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"),
        "type": "exceed_context_size_error",
        "n_prompt_tokens": tokens,
        "n_ctx": n_ctx
    }})
}

/// The refusal of a request over the scripted context window, worded as Anthropic
/// words it (providers recognise overflow by such messages).
fn over_window(max_input_tokens: Option<u64>, body_bytes: usize) -> Option<(u16, String)> {
    let max = max_input_tokens?;
    let tokens = body_bytes as u64 / 4;
    (tokens > max).then(|| {
        (
            400,
            format!("prompt is too long: {tokens} tokens > {max} maximum"),
        )
    })
}

/// A scripted HTTP error: `null` body = protocol default, string = verbatim text.
fn error_reply(
    protocol: Protocol,
    status: u16,
    body: &Value,
    retry_after: Option<&str>,
) -> Response<ResponseBody> {
    match body {
        Value::Null => {
            let message = format!("mock-llm: scripted error {status}");
            json_response(status, &protocol.error_body(status, &message), retry_after)
        }
        Value::String(text) => {
            response(status, "text/plain", Bytes::from(text.clone()), retry_after)
        }
        other => json_response(status, other, retry_after),
    }
}

fn json_response(status: u16, body: &Value, retry_after: Option<&str>) -> Response<ResponseBody> {
    response(
        status,
        "application/json",
        Bytes::from(body.to_string()),
        retry_after,
    )
}

fn response(
    status: u16,
    content_type: &'static str,
    body: Bytes,
    retry_after: Option<&str>,
) -> Response<ResponseBody> {
    let body = Full::new(body)
        .map_err(|never: Infallible| match never {})
        .boxed_unsync();
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(v).ok()) {
        resp.headers_mut().insert(RETRY_AFTER, value);
    }
    resp
}
