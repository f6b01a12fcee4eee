//! `roocode-tui-bench`: render cost of the TUI with a long session, and the time from a
//! `text_delta` event reaching the UI to the frame that shows it, on ratatui's
//! `TestBackend` (the terminal's own write cost excluded). Medians and p99.
//!
//! ```text
//! cargo run -q --release -p roocode-tui --bin roocode-tui-bench -- --entries 5000
//! ```

use std::time::Instant;

use clap::Parser;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use roocode_tui::bench_support::long_session;

#[derive(Parser)]
struct Args {
    /// Conversation entries in the session.
    #[arg(long, default_value_t = 5000)]
    entries: usize,
    /// Terminal size.
    #[arg(long, default_value_t = 120)]
    width: u16,
    #[arg(long, default_value_t = 40)]
    height: u16,
    /// Frames drawn for the steady-state figure.
    #[arg(long, default_value_t = 300)]
    frames: usize,
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.99))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    let (mut app, stream) = long_session(args.entries);
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut term = Terminal::new(TestBackend::new(args.width, args.height))?;

    let first = Instant::now();
    term.draw(|f| app.draw(f))?;
    let first_ms = first.elapsed().as_secs_f64() * 1000.0;

    let mut frames = Vec::with_capacity(args.frames);
    for _ in 0..args.frames {
        let t = Instant::now();
        term.draw(|f| app.draw(f))?;
        frames.push(t.elapsed().as_secs_f64() * 1000.0);
    }

    let mut deltas = Vec::with_capacity(stream.len());
    for ev in &stream {
        let t = Instant::now();
        app.on_event(ev);
        term.draw(|f| app.draw(f))?;
        deltas.push(t.elapsed().as_secs_f64() * 1000.0);
    }

    let (f50, f99) = stats(frames);
    let (d50, d99) = stats(deltas);
    println!(
        "roocode-tui-bench: {} entries, {}x{} terminal",
        args.entries, args.width, args.height
    );
    println!("session built from events      {build_ms:>9.1} ms (once)");
    println!("first frame (fills caches)     {first_ms:>9.2} ms");
    println!(
        "frame, steady                  p50 {f50:>7.3} ms   p99 {f99:>7.3} ms   (target < 16 ms)"
    );
    println!(
        "text_delta -> drawn            p50 {d50:>7.3} ms   p99 {d99:>7.3} ms   (n={}, target < 20 ms)",
        stream.len()
    );
    Ok(())
}
