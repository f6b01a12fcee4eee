//! `roocode-cli daemon logs`: the daemon log's path, its last lines (`-n N`), or
//! `--follow` like `tail -f` (reopening the file if it is truncated or replaced).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use crate::failure::Failure;
use crate::output::{out, out_line};

/// Lines shown before following when `-n` is not given.
const FOLLOW_LINES: usize = 10;

/// Runs `daemon logs`.
pub async fn run(log: &Path, lines: Option<usize>, follow: bool) -> anyhow::Result<i32> {
    if lines.is_none() && !follow {
        out_line(&log.display().to_string());
        return Ok(0);
    }
    let n = lines.unwrap_or(FOLLOW_LINES);
    let (tail, mut pos) = match last_lines(log, n) {
        Ok(found) => found,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && follow => (String::new(), 0),
        Err(e) => {
            return Err(Failure::new("io", format!("cannot read {}: {e}", log.display())).into());
        }
    };
    out(&tail);
    if !follow {
        return Ok(0);
    }
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let Ok(mut file) = File::open(log) else {
            continue;
        };
        let len = file.metadata().map_or(0, |m| m.len());
        if len < pos {
            pos = 0;
        }
        if len > pos && file.seek(SeekFrom::Start(pos)).is_ok() {
            let mut buf = Vec::new();
            if let Ok(read) = file.take(len - pos).read_to_end(&mut buf) {
                pos += read as u64;
                out(&String::from_utf8_lossy(&buf));
            }
        }
    }
}

/// The last `n` lines of the file and its length, reading backwards in growing chunks.
pub fn last_lines(path: &Path, n: usize) -> std::io::Result<(String, u64)> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if n == 0 {
        return Ok((String::new(), len));
    }
    let mut chunk = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(chunk);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::new();
        file.by_ref().take(len - start).read_to_end(&mut buf)?;
        let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let newlines: Vec<usize> = body
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i)
            .collect();
        if newlines.len() >= n {
            let from = newlines[newlines.len() - n] + 1;
            return Ok((String::from_utf8_lossy(&buf[from..]).into_owned(), len));
        }
        if start == 0 {
            return Ok((String::from_utf8_lossy(&buf).into_owned(), len));
        }
        chunk *= 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_of_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("d.log");
        std::fs::write(&log, "a\nb\nc\n").unwrap();
        assert_eq!(last_lines(&log, 2).unwrap(), ("b\nc\n".to_owned(), 6));
        assert_eq!(last_lines(&log, 5).unwrap().0, "a\nb\nc\n");
        assert_eq!(last_lines(&log, 0).unwrap().0, "");
        std::fs::write(&log, "x\ny").unwrap();
        assert_eq!(last_lines(&log, 1).unwrap().0, "y");
        let big: String = (0..50_000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&log, &big).unwrap();
        assert_eq!(last_lines(&log, 2).unwrap().0, "line 49998\nline 49999\n");
        assert_eq!(last_lines(&log, 20_000).unwrap().0.lines().count(), 20_000);
    }
}
