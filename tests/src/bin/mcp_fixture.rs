//! `mcp-fixture`: the tests' MCP server (see `roocode_tests::mcp_fixture`) on stdio, or
//! with `--http ADDR` over streamable HTTP (it prints `listening on http://ADDR/mcp`);
//! `--no-prompts` serves it on stdio announcing no prompts; `--tools N` serves instead
//! N generated tools on stdio (`roocode_tests::mcp_many`).

use anyhow::Context;
use rmcp::ServiceExt;
use roocode_tests::mcp_fixture::{Fixture, serve_http};
use roocode_tests::mcp_many::ManyTools;

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
        [flag] if flag == "--no-prompts" => {
            let server = Fixture::without_prompts()
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
        [flag, n] if flag == "--tools" => {
            let n = n.parse().context("N must be a number")?;
            let server = ManyTools::new(n)
                .serve(rmcp::transport::stdio())
                .await
                .context("cannot start on stdio")?;
            server.waiting().await?;
        }
        _ => anyhow::bail!("usage: mcp-fixture [--http HOST:PORT | --no-prompts | --tools N]"),
    }
    Ok(())
}
