//! `mcp-fixture`: the tests' MCP server (see `roocode_tests::mcp_fixture`) on stdio, or
//! with `--http ADDR` over streamable HTTP (it prints `listening on http://ADDR/mcp`).

use anyhow::Context;
use rmcp::ServiceExt;
use roocode_tests::mcp_fixture::{Fixture, serve_http};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {
            let server = Fixture::default()
                .serve(rmcp::transport::stdio())
                .await
                .context("cannot start on stdio")?;
            server.waiting().await?;
        }
        [flag, addr] if flag == "--http" => {
            let addr = addr.parse().context("ADDR must be host:port")?;
            let (bound, task) = serve_http(addr).await?;
            println!("listening on http://{bound}/mcp");
            task.await?;
        }
        _ => anyhow::bail!("usage: mcp-fixture [--http HOST:PORT]"),
    }
    Ok(())
}
