//! Batching of one model response's tool calls (DESIGN §5): consecutive
//! concurrency-safe calls run together, every other call runs alone, in call order.

/// Split `calls` into batches: each maximal run of consecutive calls for which
/// `is_safe` holds is one batch; each other call is a batch of its own. Concatenating
/// the batches gives back `calls` in order.
///
/// `[R, R, E, R, R]` → `[R, R]`, `[E]`, `[R, R]`.
pub fn partition<T>(calls: &[T], is_safe: impl Fn(&T) -> bool) -> Vec<&[T]> {
    let mut batches = Vec::new();
    let mut start = 0;
    while start < calls.len() {
        let end = if is_safe(&calls[start]) {
            calls[start..]
                .iter()
                .position(|c| !is_safe(c))
                .map_or(calls.len(), |n| start + n)
        } else {
            start + 1
        };
        batches.push(&calls[start..end]);
        start = end;
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(calls: &str) -> Vec<String> {
        let calls: Vec<char> = calls.chars().collect();
        partition(&calls, |c| *c == 'R')
            .into_iter()
            .map(|b| b.iter().collect())
            .collect()
    }

    #[test]
    fn reads_group_and_edits_stand_alone() {
        assert_eq!(split("RRERR"), ["RR", "E", "RR"]);
        assert_eq!(split("EE"), ["E", "E"]);
        assert_eq!(split("RRR"), ["RRR"]);
        assert_eq!(split("ERE"), ["E", "R", "E"]);
        assert!(split("").is_empty());
    }
}
