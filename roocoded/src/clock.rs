//! Wall-clock time as the store keeps it (milliseconds since the Unix epoch) and as
//! the wire shows it (RFC 3339 with milliseconds, UTC).

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

/// `2026-11-30T10:00:00.000Z` for a time in milliseconds since the epoch.
pub fn rfc3339(ms: i64) -> String {
    let Ok(t) = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000) else {
        return String::from("1970-01-01T00:00:00.000Z");
    };
    // Rfc3339 prints the fraction only as long as needed; we always want three digits.
    let base = t
        .replace_nanosecond(0)
        .unwrap_or(t)
        .format(&Rfc3339)
        .unwrap_or_default();
    let secs = base.trim_end_matches('Z');
    format!("{secs}.{:03}Z", ms.rem_euclid(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_three_fraction_digits() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_796_032_800_123), "2026-11-30T10:00:00.123Z");
    }
}
