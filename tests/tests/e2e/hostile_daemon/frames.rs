//! Malformed frames and the RPC bounds, through raw WebSocket connections.

use std::time::Duration;

use roocode_tests::mock_llm::Script;
use serde_json::{Value, json};
use soketto::connection::{Receiver, Sender};
use soketto::handshake::{Client, ServerResponse};
use tokio::net::UnixStream;
use tokio_util::compat::{Compat, TokioAsyncReadCompatExt};

use super::{Rng, count, daemon_pid, rss_kib, socket, start_daemon};
use crate::harness::{PATIENCE, World};
type Ws = (Sender<Compat<UnixStream>>, Receiver<Compat<UnixStream>>);

/// A raw WebSocket connection to the daemon: frames go out exactly as written.
async fn raw(w: &World) -> Ws {
    let stream = UnixStream::connect(socket(w)).await.unwrap();
    let mut client = Client::new(stream.compat(), "localhost", "/");
    let response = tokio::time::timeout(PATIENCE, client.handshake())
        .await
        .expect("handshake in time")
        .unwrap();
    assert!(
        matches!(response, ServerResponse::Accepted { .. }),
        "{response:?}"
    );
    let mut builder = client.into_builder();
    builder.set_max_message_size(64 << 20);
    builder.finish()
}

async fn send_text(tx: &mut Sender<Compat<UnixStream>>, text: &str) {
    tx.send_text(text).await.unwrap();
    tx.flush().await.unwrap();
}

async fn recv_json(rx: &mut Receiver<Compat<UnixStream>>) -> Value {
    let mut buf = Vec::new();
    tokio::time::timeout(PATIENCE, rx.receive_data(&mut buf))
        .await
        .expect("a reply in time")
        .unwrap();
    serde_json::from_slice(&buf).unwrap()
}

/// One malformed (or oddly identified) frame and the reply it must get.
struct Case {
    frame: Vec<u8>,
    id: Value,
    /// Acceptable error codes.
    codes: &'static [i64],
}

const INVALID: &[i64] = &[-32600];
const PARSE: &[i64] = &[-32700];
const EITHER: &[i64] = &[-32600, -32700];
/// A well-formed call before `daemon.hello`: the handshake error, its id echoed.
const HANDSHAKE: &[i64] = &[-32005];

fn case(rng: &mut Rng, max_message: usize) -> Case {
    let text = |s: String, id: Value, codes| Case {
        frame: s.into_bytes(),
        id,
        codes,
    };
    let n = rng.below(1_000_000);
    match rng.below(12) {
        0 => {
            let odd = [
                "0.5",
                "1e30",
                "-2.5",
                "1E2",
                "true",
                "false",
                "{}",
                "[]",
                "[1]",
                "{\"a\":1}",
                "-0.0",
            ];
            let id = odd[rng.below(odd.len() as u64) as usize];
            text(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                Value::Null,
                INVALID,
            )
        }
        1 => text(
            format!(
                r#"{{"jsonrpc":"2.0","id":{n},"id":{},"method":"daemon.info"}}"#,
                n + 1
            ),
            Value::Null,
            INVALID,
        ),
        2 => text(
            format!(r#"{{"jsonrpc":"2.0","method":"daemon.info","method":"x","id":{n}}}"#),
            Value::Null,
            INVALID,
        ),
        3 => {
            // A valid negative id: echoed exactly.
            let id = -(n as i64) - 1;
            text(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                json!(id),
                HANDSHAKE,
            )
        }
        4 => {
            let whole =
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"daemon.info","params":{{}}}}"#);
            let cut = rng.below(whole.len() as u64 - 1) as usize;
            text(whole[..cut].to_string(), Value::Null, PARSE)
        }
        5 => {
            let junk: String = (0..1 + rng.below(64))
                .map(|_| (b' ' + rng.below(95) as u8) as char)
                .collect();
            // Random printable text is almost never JSON, but might be (`7`).
            text(junk, Value::Null, EITHER)
        }
        6 => {
            let shapes = [
                "[]",
                r#"[{"jsonrpc":"2.0","id":1,"method":"daemon.info"}]"#,
                r#""a string""#,
                "42",
                "null",
                r#"{"jsonrpc":"2.0"}"#,
                r#"{"id":1,"method":"daemon.info"}"#,
            ];
            let s = shapes[rng.below(shapes.len() as u64) as usize];
            let id = if s.starts_with("{\"id\":1") {
                json!(1)
            } else {
                Value::Null
            };
            text(s.to_string(), id, INVALID)
        }
        7 => text(
            format!(r#"{{"jsonrpc":"1.0","id":{n},"method":"daemon.info"}}"#),
            json!(n),
            INVALID,
        ),
        8 => text(
            format!(r#"{{"jsonrpc":"2.0","id":"s{n}","method":{n}}}"#),
            json!(format!("s{n}")),
            INVALID,
        ),
        9 => {
            let depth = 65 + rng.below(200) as usize;
            text(
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"session.get","params":{}{}}}"#,
                    "[".repeat(depth),
                    "]".repeat(depth)
                ),
                Value::Null,
                INVALID,
            )
        }
        10 => Case {
            // Not UTF-8.
            frame: vec![b'{', 0xff, 0xfe, b'}'],
            id: Value::Null,
            codes: PARSE,
        },
        _ => {
            if rng.below(8) == 0 {
                // Over the message bound.
                text(
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":"daemon.info","params":["{}"]}}"#,
                        "x".repeat(max_message)
                    ),
                    Value::Null,
                    INVALID,
                )
            } else {
                // A huge integer id: valid JSON-RPC, echoed as written.
                let id = format!("{n}000000000000000000000");
                text(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.info"}}"#),
                    serde_json::from_str(&id).unwrap(),
                    HANDSHAKE,
                )
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_frame_gets_an_error_reply_and_the_daemon_stays_up_and_bounded() {
    let max_message = 256 << 10;
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_MESSAGE".into(), max_message.to_string()));
    let pid = start_daemon(&w).await;
    let (mut tx, mut rx) = raw(&w).await;
    let frames = count(200, 1000);
    let mut rng = Rng(0x00f7_a3e5);
    let mut rss_before = 0;
    for i in 0..frames {
        if i == frames / 10 {
            // After warm-up: the baseline the rest must not grow from.
            rss_before = rss_kib(pid);
        }
        let c = case(&mut rng, max_message);
        match std::str::from_utf8(&c.frame) {
            Ok(text) => send_text(&mut tx, text).await,
            Err(_) => {
                tx.send_binary(&c.frame).await.unwrap();
                tx.flush().await.unwrap();
            }
        }
        let reply = recv_json(&mut rx).await;
        let shown = String::from_utf8_lossy(&c.frame[..c.frame.len().min(200)]).into_owned();
        assert_eq!(reply["jsonrpc"], "2.0", "frame {i} {shown}: {reply}");
        assert_eq!(reply["id"], c.id, "frame {i} {shown}: {reply}");
        let code = reply["error"]["code"].as_i64().unwrap_or_default();
        assert!(
            c.codes.contains(&code),
            "frame {i} {shown}: code {code}, expected {:?}: {reply}",
            c.codes
        );
    }
    // The same connection still works for a well-formed call.
    send_text(
        &mut tx,
        r#"{"jsonrpc":"2.0","id":-1,"method":"daemon.hello","params":{"protocol":0,"client":{"kind":"test","name":"hostile","pid":1}}}"#,
    )
    .await;
    let hello = recv_json(&mut rx).await;
    assert_eq!(hello["id"], -1, "{hello}");
    let rss_after = rss_kib(pid);
    assert_eq!(daemon_pid(&w).await, pid, "the same daemon is up");
    eprintln!("{frames} malformed frames: daemon RSS {rss_before} KiB -> {rss_after} KiB");
    assert!(
        rss_after < rss_before + 32 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_dropped_and_others_are_served() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_CLIENT_BUFFER".into(), "4".into()));
    w.vars
        .push(("ROOCODE_RPC_CLIENT_STALL_MS".into(), "300".into()));
    let pid = start_daemon(&w).await;
    let (mut tx, _rx) = raw(&w).await;
    // Ask and never read: once the buffers are full and the stall bound passes, the
    // daemon closes the connection and writing fails.
    let flood = async {
        for n in 0u64.. {
            let req = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"daemon.info"}}"#);
            if tx.send_text(&req).await.is_err() || tx.flush().await.is_err() {
                return n;
            }
        }
        unreachable!()
    };
    let sent = tokio::time::timeout(PATIENCE, flood)
        .await
        .expect("the daemon drops a client that does not read");
    eprintln!("dropped after {sent} unread requests");
    assert_eq!(daemon_pid(&w).await, pid, "others are still served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_bounded_and_a_freed_slot_is_reused() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_CONNECTIONS".into(), "3".into()));
    let pid = start_daemon(&w).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(raw(&w).await);
    }
    // A fourth is closed at accept: its handshake fails.
    let stream = UnixStream::connect(socket(&w)).await.unwrap();
    let mut client = Client::new(stream.compat(), "localhost", "/");
    let fourth = tokio::time::timeout(PATIENCE, client.handshake())
        .await
        .expect("refused in time");
    assert!(fourth.is_err(), "{fourth:?}");
    held.pop();
    // The freed slot serves the next client (the CLI).
    let wait = async {
        loop {
            let out = w.run(&["daemon", "status", "--json"]).await;
            if out.code == 0 {
                return out.json();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let info = tokio::time::timeout(PATIENCE, wait).await.unwrap();
    assert_eq!(info["pid"].as_u64().unwrap() as i32, pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_per_connection_are_bounded() {
    let mut w = World::new(Script::new()).await;
    w.vars
        .push(("ROOCODE_RPC_MAX_SUBSCRIPTIONS".into(), "2".into()));
    start_daemon(&w).await;
    let (mut tx, mut rx) = raw(&w).await;
    let hello = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"daemon.hello","params":{{"protocol":{},"build_id":"{}","client":{{"kind":"test","name":"hostile","pid":1}}}}}}"#,
        roocode_protocol::PROTOCOL_VERSION,
        roocode_protocol::BUILD_ID
    );
    send_text(&mut tx, &hello).await;
    let answer = recv_json(&mut rx).await;
    assert!(answer["result"].is_object(), "{answer}");
    let mut replies = Vec::new();
    for id in 1..=3 {
        let sub =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"daemon.subscribe","params":{{}}}}"#);
        send_text(&mut tx, &sub).await;
        // Skip notifications: only the reply to this call counts.
        loop {
            let v = recv_json(&mut rx).await;
            if v["id"] == id {
                replies.push(v);
                break;
            }
        }
    }
    assert!(
        replies[0]["result"].is_string() || replies[0]["result"].is_number(),
        "{replies:?}"
    );
    assert!(
        replies[1]["result"].is_string() || replies[1]["result"].is_number(),
        "{replies:?}"
    );
    assert!(
        replies[2]["error"].is_object(),
        "the third is refused: {replies:?}"
    );
}
