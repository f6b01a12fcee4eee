//! Reading a Markdown file safely: regular files only (symlinks followed), a size cap,
//! UTF-8 with the line of the first bad byte.

use std::path::Path;

use super::{Invalid, Located};

/// The text of `path`; `None` for what is not a regular file (a folder named `x.md`, a
/// FIFO), which the caller skips. Larger than `max_bytes` is refused.
pub(crate) fn read_text(path: &Path, max_bytes: u64) -> Result<Option<String>, Located> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
            let error = if is_link {
                Invalid::BrokenLink(e)
            } else {
                Invalid::Read(e)
            };
            return Err(Located::nowhere(error));
        }
    };
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.len() > max_bytes {
        let error = Invalid::TooLarge {
            size: meta.len(),
            max: max_bytes,
        };
        return Err(Located::nowhere(error));
    }
    let bytes = std::fs::read(path).map_err(|e| Located::nowhere(Invalid::Read(e)))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|b| **b == b'\n').count();
            Err(Located::at(line, Invalid::NotUtf8))
        }
    }
}
