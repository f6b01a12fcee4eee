//! The small words and numbers of a trace's text: durations (`12 ms`, `4.2 s`,
//! `2 m 05 s`), counts with thousands separators, ratios as percents, short ids, a
//! tool call's input in a few words, and RFC 3339 times read back as milliseconds (so
//! that the log's steps can be put in order with the model calls).

use std::path::Path;

use serde_json::Value;

/// Characters of a tool's input shown when it is not JSON (the recorder caps it).
const RAW_INPUT: usize = 60;

/// `12 ms`, `4.2 s`, `2 m 05 s`, `1 h 02 m`.
pub fn duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{} m {:02} s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{} h {:02} m", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

/// `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `0.876` as `88%`.
pub fn percent(ratio: f64) -> String {
    format!("{:.0}%", (ratio * 100.0).clamp(0.0, 100.0))
}

/// What a call was about, in a few words (`src/a.rs`, `cargo test`), from its input as
/// recorded (JSON, possibly cut): the path, command or URL, paths relative to `cwd`.
pub fn input_words(input: &str, cwd: Option<&Path>) -> String {
    match serde_json::from_str::<Value>(input) {
        Ok(value) => crate::display::main_arg(&value, cwd).unwrap_or_default(),
        Err(_) => crate::display::clip(input.lines().next().unwrap_or_default(), RAW_INPUT),
    }
}

/// The first line of `text`, at most `max` characters.
pub fn first_line(text: &str, max: usize) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let first = first.unwrap_or_default();
    let mut out = crate::display::clip(first, max);
    if first.len() < text.trim().len() && !out.ends_with('…') {
        out.push('…');
    }
    out
}

/// Unix milliseconds of an RFC 3339 time as the daemon writes them
/// (`2026-11-30T10:00:00.123Z`, or with an offset); `None` for another text.
pub fn rfc3339_ms(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = ts.get(from..from + len)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let mut at = 19;
    let mut millis = 0;
    if b.get(at) == Some(&b'.') {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let frac = ts.get(at + 1..at + 1 + digits.min(3))?;
        millis = frac.parse::<i64>().ok()? * 10_i64.pow(3 - frac.len() as u32);
        at += 1 + digits;
    }
    let offset_s = match ts.get(at..)? {
        "Z" | "z" => 0,
        rest if rest.len() == 6 && matches!(rest.as_bytes()[0], b'+' | b'-') => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (num(at + 1, 2)? * 3600 + num(at + 4, 2)? * 60)
        }
        _ => return None,
    };
    // H. Hinnant's days_from_civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_s;
    Some(secs * 1000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(999), "999 ms");
        assert_eq!(duration(4_240), "4.2 s");
        assert_eq!(duration(125_000), "2 m 05 s");
        assert_eq!(duration(3_720_000), "1 h 02 m");
    }

    #[test]
    fn counts_and_percents() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(12_345_678), "12,345,678");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.876), "88%");
        assert_eq!(percent(1.5), "100%");
    }

    #[test]
    fn input_in_a_few_words() {
        let cwd = Path::new("/p");
        assert_eq!(
            input_words(r#"{"file_path":"/p/src/a.rs"}"#, Some(cwd)),
            "src/a.rs"
        );
        assert_eq!(input_words(r#"{"command":"rm -rf x"}"#, None), "rm -rf x");
        assert_eq!(
            input_words(r#"{"command":"cut"#, None),
            r#"{"command":"cut"#
        );
        assert_eq!(input_words("{}", None), "");
    }

    #[test]
    fn first_lines_say_when_there_is_more() {
        assert_eq!(first_line("fix it", 20), "fix it");
        assert_eq!(first_line("\nfix it\nand test", 20), "fix it…");
        assert_eq!(first_line("abcdefghij", 5), "abcd…");
    }

    #[test]
    fn rfc3339_times() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_ms("2026-11-30T12:00:00.000Z"),
            Some(1_796_040_000_000)
        );
        assert_eq!(
            rfc3339_ms("2026-11-30T13:00:00.5+01:00"),
            Some(1_796_040_000_500)
        );
        assert_eq!(rfc3339_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000));
        assert_eq!(rfc3339_ms("yesterday"), None);
        assert_eq!(rfc3339_ms("2026-11-30T12:00:00"), None, "no zone");
    }
}
