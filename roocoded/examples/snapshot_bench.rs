//! Measures the cost of a rewind snapshot (issue 16: under 50 ms per turn on a
//! 10,000-file repository when nothing changed). Run by hand:
//!
//! ```text
//! cargo run --release -p roocoded --example snapshot_bench [FILES]
//! ```
//!
//! It builds a tree of FILES (default 10,000) small source files in 100 directories,
//! with a `.gitignore`d build directory, takes a first snapshot (every file hashed),
//! then 21 more with nothing changed and 21 after touching one file, and prints the
//! medians.

use std::time::{Duration, Instant, SystemTime};

use roocoded::snapshot::{Limits, Snapshots};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let files: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(10_000);
    let tree = tempfile_dir("tree")?;
    let store = tempfile_dir("store")?;
    let old = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..files {
        let dir = tree.join(format!("src/mod{:03}", i % 100));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("file{i:05}.rs"));
        std::fs::write(
            &path,
            format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(20),
        )?;
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(old)?;
    }
    std::fs::write(tree.join(".gitignore"), "target/\n")?;
    std::fs::File::options()
        .write(true)
        .open(tree.join(".gitignore"))?
        .set_modified(old)?;
    std::fs::create_dir_all(tree.join("target"))?;
    std::fs::write(tree.join("target/big.o"), vec![0u8; 1 << 20])?;

    let snaps = Snapshots::new(&store, Limits::default());
    let started = Instant::now();
    let first = snaps.take(&tree)?;
    println!(
        "first snapshot: {} files, {} hashed, {:.1} ms",
        first.manifest.files.len(),
        first.hashed,
        started.elapsed().as_secs_f64() * 1e3
    );
    let mut unchanged = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let taken = snaps.take(&tree)?;
        unchanged.push(t.elapsed());
        assert_eq!(taken.id, first.id);
        assert_eq!(taken.hashed, 0);
    }
    let mut one_changed = Vec::new();
    for n in 0..21 {
        std::fs::write(tree.join("src/mod000/file00000.rs"), format!("// {n}\n"))?;
        let t = Instant::now();
        snaps.take(&tree)?;
        one_changed.push(t.elapsed());
    }
    let a = median(unchanged);
    let b = median(one_changed);
    println!(
        "nothing changed: median {:.1} ms; one file changed: median {:.1} ms (ratio {:.2})",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        b.as_secs_f64() / a.as_secs_f64()
    );
    std::fs::remove_dir_all(&tree)?;
    std::fs::remove_dir_all(&store)?;
    Ok(())
}

/// A fresh directory under the system's temporary directory.
fn tempfile_dir(what: &str) -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "roocode-snapshot-bench-{what}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
