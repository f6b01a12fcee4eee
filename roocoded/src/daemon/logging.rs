//! Logging: to the log file in the background, to stderr with `--foreground`.
//! `ROOCODE_LOG` (or `RUST_LOG`) sets the filter; the default is `info`.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

use super::DaemonError;

pub fn init(log_file: Option<&Path>) -> Result<(), DaemonError> {
    let filter = std::env::var("ROOCODE_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "info".to_string());
    let filter = EnvFilter::try_new(&filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    match log_file {
        Some(path) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|source| DaemonError::Io {
                    what: format!("create the log directory {}", dir.display()),
                    source,
                })?;
            }
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|source| DaemonError::Io {
                    what: format!("open the log file {}", path.display()),
                    source,
                })?;
            builder
                .with_ansi(false)
                .with_writer(Mutex::new(file))
                .init();
        }
        None => builder.with_writer(std::io::stderr).init(),
    }
    Ok(())
}
