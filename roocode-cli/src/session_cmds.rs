//! The small per-session commands: `cancel ID`, `export ID` (the model context as
//! JSONL, fetched page by page) and `rm ID`. Ids may be short ids or unique prefixes: each command
//! resolves the id with `session.get` first.

use roocode_client::RpcClient;
use roocode_protocol::api::SessionApiClient;
use roocode_protocol::session::SessionInfo;

use crate::connect;
use crate::failure::Failure;
use crate::output::{err_line, out};

/// Lines asked for per `session.export` page.
const EXPORT_PAGE: u32 = 500;

/// Connects and resolves `id` (a short id, a full id or a unique prefix) with `session.get`.
pub(crate) async fn resolve(id: &str) -> Result<(connect::Conn, SessionInfo), Failure> {
    let paths = connect::paths()?;
    let conn = connect::connect(&paths).await?;
    let session = conn.rpc.get(id.to_owned()).await?;
    Ok((conn, session))
}

/// `cancel ID`: interrupts the session's running turn.
pub async fn cancel(id: &str) -> anyhow::Result<i32> {
    let (conn, session) = resolve(id).await?;
    let was_running = conn
        .rpc
        .cancel(session.id.clone())
        .await
        .map_err(Failure::from)?;
    if was_running {
        err_line(&format!(
            "cancelled the running turn of {}",
            session.shown_id()
        ));
    } else {
        err_line(&format!("no turn was running in {}", session.shown_id()));
    }
    Ok(0)
}

/// `rm ID`: deletes the session (its running turn is cancelled first).
pub async fn remove(id: &str) -> anyhow::Result<i32> {
    let (conn, session) = resolve(id).await?;
    conn.rpc
        .delete(session.id.clone())
        .await
        .map_err(Failure::from)?;
    err_line(&format!("deleted {}", session.shown_id()));
    Ok(0)
}

/// `export ID`: the model context as JSONL on stdout.
pub async fn export(id: &str) -> anyhow::Result<i32> {
    let (conn, session) = resolve(id).await?;
    export_pages(&conn.rpc, &session.id, |lines| {
        let mut chunk = String::new();
        for line in lines {
            chunk.push_str(line.trim_end_matches('\n'));
            chunk.push('\n');
        }
        out(&chunk);
    })
    .await?;
    Ok(0)
}

/// Fetches every export page, handing each one's lines to `write`.
async fn export_pages(
    rpc: &RpcClient,
    session_id: &str,
    mut write: impl FnMut(&[String]),
) -> Result<(), Failure> {
    let mut offset = 0u64;
    loop {
        let page = rpc
            .export(
                session_id.to_owned(),
                Some("jsonl".into()),
                Some(offset),
                Some(EXPORT_PAGE),
            )
            .await?;
        write(&page.lines);
        match page.next_offset {
            Some(next) if next > offset => offset = next,
            Some(_) => {
                return Err(Failure::new(
                    "internal",
                    format!("session.export did not advance past offset {offset}"),
                ));
            }
            None => return Ok(()),
        }
    }
}
