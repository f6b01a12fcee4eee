//! A scripted HTTP server on 127.0.0.1 for tests: answers each connection with the next
//! canned reply (raw HTTP/1.1, `connection: close`) and records the requests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One canned reply.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// A complete response with a content-length.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Status 200 SSE headers, this much body, then the connection closes (no length).
    Broken { body: String },
    /// Status 200 SSE headers, this much body, then the connection stays open.
    Hang { body: String },
}

impl Reply {
    /// An Anthropic stream answering `text` (end_turn, small usage).
    pub(crate) fn anthropic_text(text: &str) -> Self {
        let events = [
            serde_json::json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
            serde_json::json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            serde_json::json!({"type": "content_block_stop", "index": 0}),
            serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}),
            serde_json::json!({"type": "message_stop"}),
        ];
        let body: String = events
            .iter()
            .map(|e| {
                format!(
                    "event: {}\ndata: {e}\n\n",
                    e["type"].as_str().unwrap_or_default()
                )
            })
            .collect();
        Reply::sse(body)
    }

    pub(crate) fn sse(body: impl Into<String>) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.into(),
        }
    }

    pub(crate) fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Self {
        Reply::Full {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_string(),
        }
    }
}

/// A recorded request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub head: String,
    pub body: String,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

pub(crate) struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl TestServer {
    pub(crate) async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let recorded = requests.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let recorded = recorded.clone();
                let replies = replies.clone();
                tokio::spawn(async move {
                    if let Some(request) = read_request(socket).await {
                        let (request, socket) = request;
                        recorded.lock().unwrap().push(request);
                        let reply = replies.lock().unwrap().pop_front();
                        respond(socket, reply).await;
                    }
                });
            }
        });
        TestServer { url, requests }
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

async fn read_request(mut socket: TcpStream) -> Option<(Request, TcpStream)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).to_string();
    Some((Request { head, body }, socket))
}

async fn respond(mut socket: TcpStream, reply: Option<Reply>) {
    let reply = reply.unwrap_or_else(|| Reply::status(500, &[], "no more scripted replies"));
    let sse_head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Broken { body } => {
            let _ = socket.write_all(sse_head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Hang { body } => {
            let _ = socket.write_all(sse_head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.flush().await;
            std::future::pending::<()>().await;
        }
    }
}
