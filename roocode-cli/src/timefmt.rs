//! Times for people: RFC 3339 timestamps as ages (`5m ago`) and durations (`1h 2m`).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch now.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` into seconds since the epoch.
pub fn unix_secs(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |from: usize, to: usize| ts.get(from..to)?.parse::<i64>().ok();
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, min, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    let mut rest = &ts[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let h = rest.get(1..3)?.parse::<i64>().ok()?;
            let m = rest.get(4..6)?.parse::<i64>().ok()?;
            sign * (h * 3600 + m * 60)
        }
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `ts` as an age relative to `now` (`just now`, `42s ago`, `5m ago`, `3h ago`,
/// `2d ago`); the timestamp itself when it cannot be read.
pub fn age(ts: &str, now: i64) -> String {
    let Some(then) = unix_secs(ts) else {
        return ts.to_owned();
    };
    let secs = now - then;
    match secs {
        ..=4 => "just now".to_owned(),
        5..=59 => format!("{secs}s ago"),
        60..=3_599 => format!("{}m ago", secs / 60),
        3_600..=86_399 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// A duration such as `3d 4h`, `1h 2m 3s` or `12s`.
pub fn duration(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) => format!("{m}m {s}s"),
        (0, _, _) => format!("{h}h {m}m {s}s"),
        _ => format!("{d}d {h}h {m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc3339() {
        assert_eq!(unix_secs("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_secs("2000-03-01T00:00:00.123Z"), Some(951_868_800));
        assert_eq!(unix_secs("2000-03-01T01:00:00+01:00"), Some(951_868_800));
        assert_eq!(unix_secs("yesterday"), None);
    }

    #[test]
    fn ages_and_durations() {
        let now = unix_secs("2026-11-30T10:00:00Z").unwrap_or_default();
        assert_eq!(age("2026-11-30T09:59:58.5Z", now), "just now");
        assert_eq!(age("2026-11-30T09:55:00Z", now), "5m ago");
        assert_eq!(age("2026-11-28T09:00:00Z", now), "2d ago");
        assert_eq!(age("odd", now), "odd");
        assert_eq!(duration(12), "12s");
        assert_eq!(duration(3723), "1h 2m 3s");
        assert_eq!(duration(90_061), "1d 1h 1m");
    }
}
