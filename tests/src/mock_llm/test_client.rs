//! A minimal raw HTTP/1.1 client for the mock server's own tests (no extra
//! dependencies): sends one request with `Connection: close`, reads the response
//! incrementally, de-chunks it and splits SSE events.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Fails a test that hangs instead of hanging the test run.
pub(crate) async fn within<F: std::future::Future>(fut: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("timed out")
}

/// An open connection with the bytes received so far.
pub(crate) struct Conn {
    stream: TcpStream,
    pub(crate) raw: Vec<u8>,
    eof: bool,
}

pub(crate) async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> Conn {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    Conn {
        stream,
        raw: Vec::new(),
        eof: false,
    }
}

/// POSTs a JSON body and reads the whole response.
pub(crate) async fn post(addr: SocketAddr, path: &str, body: &Value) -> Response {
    within(
        send(addr, "POST", path, &body.to_string(), &[])
            .await
            .finish(),
    )
    .await
}

impl Conn {
    async fn read_some(&mut self) {
        let mut buf = [0u8; 4096];
        match self.stream.read(&mut buf).await {
            Ok(0) | Err(_) => self.eof = true,
            Ok(n) => self.raw.extend_from_slice(&buf[..n]),
        }
    }

    pub(crate) fn received(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// Reads until the raw bytes contain `needle`; false at end of stream.
    pub(crate) async fn read_until(&mut self, needle: &str) -> bool {
        while !self.received().contains(needle) {
            if self.eof {
                return false;
            }
            self.read_some().await;
        }
        true
    }

    /// Reads to the end of the stream and parses the response.
    pub(crate) async fn finish(mut self) -> Response {
        while !self.eof {
            self.read_some().await;
        }
        Response::parse(&self.raw)
    }
}

#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
    /// False when a chunked body ended without its terminating chunk.
    pub(crate) complete: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sse {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
}

impl Sse {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

impl Response {
    fn parse(raw: &[u8]) -> Self {
        let text = String::from_utf8_lossy(raw).into_owned();
        let (head, rest) = text.split_once("\r\n\r\n").expect("no response head");
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let mut resp = Self {
            status,
            headers,
            body: String::new(),
            complete: true,
        };
        if resp.header("transfer-encoding") == Some("chunked") {
            let (body, complete) = dechunk(rest);
            resp.body = body;
            resp.complete = complete;
        } else {
            resp.body = rest.to_owned();
        }
        resp
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }

    /// The SSE events of the body.
    pub(crate) fn sse(&self) -> Vec<Sse> {
        self.body
            .split("\n\n")
            .filter(|block| !block.trim().is_empty())
            .map(|block| {
                let mut sse = Sse {
                    event: None,
                    data: String::new(),
                };
                for line in block.lines() {
                    if let Some(event) = line.strip_prefix("event: ") {
                        sse.event = Some(event.to_owned());
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        sse.data.push_str(data);
                    }
                }
                sse
            })
            .collect()
    }
}

fn dechunk(mut rest: &str) -> (String, bool) {
    let mut body = String::new();
    loop {
        let Some((size_line, after)) = rest.split_once("\r\n") else {
            return (body, false);
        };
        let size = usize::from_str_radix(size_line.trim(), 16).unwrap();
        if size == 0 {
            return (body, true);
        }
        if after.len() < size + 2 {
            return (body, false);
        }
        body.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
}
