//! Tests of the WebFetch tool against a raw HTTP server on 127.0.0.1 started by each
//! test (it lives as long as the test's runtime).

use std::net::SocketAddr;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use super::{MAX_BODY_BYTES, MAX_CONTENT_CHARS, Summarizer, normalise_url};
use crate::tools::test_support::Project;
use crate::tools::test_support::prepared;
use crate::tools::{PermissionTarget, ToolError};

const PAGE: &str = "<!doctype html><html><head><title>Test page</title>\
<style>body { color: red }</style><script>alert('hidden')</script></head>\
<body><h1>Hello</h1><p>Some <b>bold</b> text and a <a href=\"/x\">link</a>.</p>\
<ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>";

fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

/// The test site: one raw response per path.
fn route(path: &str, port: u16) -> Vec<u8> {
    match path {
        "/page" => response(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            PAGE.as_bytes(),
        ),
        "/old" => response("301 Moved Permanently", &[("Location", "/page")], b""),
        "/away" => response(
            "302 Found",
            &[("Location", &format!("http://localhost:{port}/page"))],
            b"",
        ),
        "/loop" => response("302 Found", &[("Location", "/loop")], b""),
        "/img" => response(
            "200 OK",
            &[("Content-Type", "image/png")],
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        ),
        "/json" => response(
            "200 OK",
            &[("Content-Type", "application/json")],
            br#"{"a": [1, 2]}"#,
        ),
        "/latin1" => response(
            "200 OK",
            &[("Content-Type", "text/plain; charset=iso-8859-1")],
            b"caf\xe9",
        ),
        "/untyped" => response("200 OK", &[], b"plain words"),
        "/big" => {
            let body = "abcdefghi\n".repeat(600_000);
            response("200 OK", &[("Content-Type", "text/plain")], body.as_bytes())
        }
        _ => response(
            "404 Not Found",
            &[("Content-Type", "text/plain")],
            b"no such page",
        ),
    }
}

/// Start the test site; requests are answered until the test's runtime ends.
async fn serve() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 65536 {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
                let _ = stream.write_all(&route(&path, addr.port())).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

async fn fetch(p: &Project, url: &str) -> Result<String, ToolError> {
    p.run("WebFetch", json!({"url": url}))
        .await
        .map(|out| out.content)
}

#[tokio::test]
async fn html_becomes_markdown_without_scripts_or_styles() {
    let addr = serve().await;
    let p = Project::new();
    let out = fetch(&p, &format!("http://{addr}/page")).await.unwrap();
    assert_eq!(
        out,
        format!(
            "Fetched http://{addr}/page (text/html, {} bytes)\n\n\
             Test page\n\n\
             # Hello\n\n\
             Some **bold** text and a [link](/x).\n\n\
             *   one\n\
             *   two",
            PAGE.len()
        )
    );
}

#[tokio::test]
async fn other_text_types_are_returned_as_is() {
    let addr = serve().await;
    let p = Project::new();
    assert_eq!(
        fetch(&p, &format!("http://{addr}/json")).await.unwrap(),
        format!("Fetched http://{addr}/json (application/json, 13 bytes)\n\n{{\"a\": [1, 2]}}")
    );
    assert_eq!(
        fetch(&p, &format!("http://{addr}/latin1")).await.unwrap(),
        format!("Fetched http://{addr}/latin1 (text/plain, 4 bytes)\n\ncafé")
    );
    assert_eq!(
        fetch(&p, &format!("http://{addr}/untyped")).await.unwrap(),
        format!("Fetched http://{addr}/untyped (no content type, 11 bytes)\n\nplain words")
    );
}

#[tokio::test]
async fn same_host_redirects_are_followed_and_others_reported() {
    let addr = serve().await;
    let p = Project::new();
    let out = fetch(&p, &format!("http://{addr}/old")).await.unwrap();
    assert!(
        out.starts_with(&format!("Fetched http://{addr}/page (text/html, ")),
        "{out}"
    );
    let out = fetch(&p, &format!("http://{addr}/away")).await.unwrap();
    let port = addr.port();
    assert_eq!(
        out,
        format!(
            "http://{addr}/away redirected (HTTP 302 Found) to a different host: \
             http://localhost:{port}/page\n\
             WebFetch does not follow a redirect to a host that needs its own approval. To \
             fetch it, call WebFetch again with url \"http://localhost:{port}/page\"."
        )
    );
    let err = fetch(&p, &format!("http://{addr}/loop")).await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(format!(
            "Too many redirects (more than 10); the last one was to http://{addr}/loop."
        ))
    );
}

#[tokio::test]
async fn binary_content_and_error_statuses_are_refused() {
    let addr = serve().await;
    let p = Project::new();
    let err = fetch(&p, &format!("http://{addr}/img")).await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(format!(
            "http://{addr}/img returned binary content (image/png, 16 bytes); WebFetch only \
             reads HTML and text."
        ))
    );
    let err = fetch(&p, &format!("http://{addr}/nowhere"))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(format!(
            "http://{addr}/nowhere answered HTTP 404 Not Found:\nno such page"
        ))
    );
}

#[tokio::test]
async fn large_bodies_are_cut_and_output_is_capped() {
    let addr = serve().await;
    let p = Project::new();
    let out = fetch(&p, &format!("http://{addr}/big")).await.unwrap();
    let header = format!("Fetched http://{addr}/big (text/plain, {MAX_BODY_BYTES} bytes)\n\n");
    assert!(out.starts_with(&header), "{}", &out[..200]);
    let notes = format!(
        "\n\n(Content truncated: showing the first {MAX_CONTENT_CHARS} of {MAX_BODY_BYTES} \
         characters.)\n\n(The response was larger than 5 MB; only the first 5 MB were read.)"
    );
    assert!(out.ends_with(&notes), "{}", &out[out.len() - 300..]);
    assert_eq!(out.len(), header.len() + MAX_CONTENT_CHARS + notes.len());
    assert!(out[header.len()..].starts_with("abcdefghi\nabcdefghi\n"));
}

struct Echo;

impl Summarizer for Echo {
    fn summarize<'a>(
        &'a self,
        content: &'a str,
        prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        async move {
            if prompt == "fail" {
                Err("model unavailable".to_string())
            } else {
                Ok(format!("{prompt} -> {} chars", content.chars().count()))
            }
        }
        .boxed()
    }
}

#[tokio::test]
async fn prompts_go_to_the_summarizer_when_there_is_one() {
    let addr = serve().await;
    let url = format!("http://{addr}/json");
    let header = format!("Fetched {url} (application/json, 13 bytes)");
    let mut p = Project::new();
    let out = p
        .ok("WebFetch", json!({"url": url, "prompt": "list a"}))
        .await;
    assert_eq!(
        out,
        format!(
            "{header}\n\nPrompt: list a\n(No summarizer is available, so the content follows \
             as fetched; answer the prompt from it.)\n\n{{\"a\": [1, 2]}}"
        )
    );
    p.ctx.summarizer = Some(Arc::new(Echo));
    let out = p
        .ok("WebFetch", json!({"url": url, "prompt": "list a"}))
        .await;
    assert_eq!(out, format!("{header}\n\nlist a -> 13 chars"));
    let out = p
        .ok("WebFetch", json!({"url": url, "prompt": "fail"}))
        .await;
    assert_eq!(
        out,
        format!(
            "{header}\n\nPrompt: fail\n(Condensing the content for the prompt failed: model \
             unavailable. The content follows; answer the prompt from it.)\n\n{{\"a\": [1, 2]}}"
        )
    );
}

#[test]
fn urls_are_checked_and_upgraded() {
    let ok = |raw: &str| normalise_url(raw).map(|u| u.to_string());
    assert_eq!(
        ok("http://example.com/a?b=1"),
        Ok("https://example.com/a?b=1".into())
    );
    assert_eq!(ok("https://example.com"), Ok("https://example.com/".into()));
    assert_eq!(
        ok("http://127.0.0.1:8080/x"),
        Ok("http://127.0.0.1:8080/x".into())
    );
    assert_eq!(ok("http://localhost/"), Ok("http://localhost/".into()));
    assert_eq!(ok("http://[::1]:3000/"), Ok("http://[::1]:3000/".into()));
    // Every local spelling stays on http (local services rarely have certificates).
    assert_eq!(ok("http://2130706433/"), Ok("http://127.0.0.1/".into()));
    assert_eq!(ok("http://10.1.2.3/"), Ok("http://10.1.2.3/".into()));
    assert_eq!(
        ok("http://app.localhost/"),
        Ok("http://app.localhost/".into())
    );
    assert_eq!(
        ok("http://[::ffff:192.168.0.1]/"),
        Ok("http://[::ffff:c0a8:1]/".into())
    );
    assert_eq!(
        ok("http://localhost.example.com/"),
        Ok("https://localhost.example.com/".into())
    );
    for bad in [
        "ftp://example.com/f",
        "file:///etc/passwd",
        "example.com",
        "https://user:pw@example.com/",
    ] {
        assert!(
            matches!(normalise_url(bad), Err(ToolError::InvalidInput(_))),
            "{bad}"
        );
    }
}

#[test]
fn descriptor_and_schema() {
    let p = Project::new();
    let call = prepared(
        &super::WebFetchTool,
        &json!({"url": "https://a.example/x"}),
        &p.ctx,
    );
    assert!(call.spec.effect.is_read_only());
    assert!(call.concurrency_safe);
    assert_eq!(
        call.target,
        PermissionTarget::Url("https://a.example/x".to_string())
    );
    let registry = crate::tools::Registry::with_builtins();
    assert_eq!(
        registry.validate("WebFetch", &json!({"url": "https://a", "prompt": "p"})),
        Ok(())
    );
    assert_eq!(
        registry.validate("WebFetch", &json!({"url": "https://a", "timeout": 5})),
        Err("Invalid input for tool WebFetch:\n\
             - (root): Additional properties are not allowed ('timeout' was unexpected); the valid parameters are prompt, url"
            .to_string())
    );
}
