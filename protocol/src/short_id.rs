//! Short session ids: the form people see and type instead of a full id.
//!
//! A session id is a UUIDv7, `tttttttt-tttt-7aaa-vbbb-cccccccccccc`. Its first 12 hex
//! digits are the creation time in milliseconds, so every session made within a minute
//! or so shares them: a prefix of the id says little. The short form is therefore taken
//! from the id's **tail**, its last group (`cccccccccccc`, 12 hex digits): those 48 bits
//! are random (when two ids are made in the same millisecond, the first 16 of them hold
//! the low bits of the generator's counter, which keeps them distinct). The short id is
//! the shortest prefix of the tail, at least [`MIN_LEN`] characters long, that no other
//! session's tail starts with; when even the whole tail is shared, or the id is not a
//! UUID, it is the full id.
//!
//! The daemon computes short ids ([`shortest_unique`]) and resolves what a user typed:
//! the full id, a prefix of the full id (as before short ids existed), or a prefix of
//! at least [`MIN_LEN`] characters of the tail ([`is_tail_prefix`]).

/// Fewest characters of a short id: 32 random bits, so a clash needs tens of thousands
/// of sessions.
pub const MIN_LEN: usize = 8;

/// Length of a UUID's text form, and where its last group starts.
const UUID_LEN: usize = 36;
const TAIL_START: usize = 24;

/// The tail (last group) of a UUID-shaped id, lowercase hex; `None` for other ids.
pub fn tail(id: &str) -> Option<&str> {
    let b = id.as_bytes();
    let shaped = b.len() == UUID_LEN
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        });
    shaped.then(|| &id[TAIL_START..])
}

/// Whether `given` can be the start of a tail: [`MIN_LEN`] to 12 hex digits, no dash.
pub fn is_tail_prefix(given: &str) -> bool {
    (MIN_LEN..=UUID_LEN - TAIL_START).contains(&given.len())
        && given.bytes().all(|c| c.is_ascii_hexdigit())
}

/// The short id of `id` among `sorted_tails`, the tails of every session (`id`'s own
/// included), sorted.
pub fn shortest_unique(id: &str, sorted_tails: &[String]) -> String {
    let Some(own) = tail(id) else {
        return id.to_owned();
    };
    let first = sorted_tails.partition_point(|t| t.as_str() < own);
    let end = sorted_tails.partition_point(|t| t.as_str() <= own);
    if end - first > 1 {
        // Another session has the very same tail: only the full id tells them apart.
        return id.to_owned();
    }
    let before = first.checked_sub(1).map(|i| sorted_tails[i].as_str());
    let after = sorted_tails.get(end).map(String::as_str);
    let shared = [before, after]
        .into_iter()
        .flatten()
        .map(|other| common_prefix_len(own, other))
        .max()
        .unwrap_or(0);
    let len = (shared + 1).max(MIN_LEN);
    if len > own.len() {
        return id.to_owned();
    }
    own[..len].to_owned()
}

fn common_prefix_len(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(tail: &str) -> String {
        format!("019ad9f3-1c2e-7a10-8b00-{tail}")
    }

    fn tails(ids: &[String]) -> Vec<String> {
        let mut t: Vec<String> = ids
            .iter()
            .filter_map(|i| tail(i))
            .map(String::from)
            .collect();
        t.sort();
        t
    }

    #[test]
    fn the_tail_is_the_last_group_of_a_uuid() {
        assert_eq!(tail(&id("0123456789ab")), Some("0123456789ab"));
        assert_eq!(
            tail("019ad9f3-1c2e-7a10-8b00-0123456789AB"),
            None,
            "uppercase"
        );
        assert_eq!(tail("019ad9f3-1c2e-7a10-8b00-0123456789a"), None, "short");
        assert_eq!(
            tail("019ad9f31c2e7a108b000123456789abcdef"),
            None,
            "no dashes"
        );
        assert_eq!(tail("0191aa-1"), None);
    }

    #[test]
    fn a_lone_session_gets_the_minimum_length() {
        let ids = [id("0123456789ab")];
        assert_eq!(shortest_unique(&ids[0], &tails(&ids)), "01234567");
    }

    #[test]
    fn short_ids_are_unique_and_never_shorter_than_the_minimum() {
        // Tails sharing 0, 8, 9 and 11 characters with a neighbour.
        let ids = [
            id("aaaaaaaa0000"),
            id("aaaaaaaa1000"),
            id("aaaaaaaa1100"),
            id("bbbbbbbbbbb0"),
            id("bbbbbbbbbbb1"),
            id("c00000000000"),
        ];
        let sorted = tails(&ids);
        let short: Vec<String> = ids.iter().map(|i| shortest_unique(i, &sorted)).collect();
        assert_eq!(
            short,
            [
                "aaaaaaaa0",
                "aaaaaaaa10",
                "aaaaaaaa11",
                "bbbbbbbbbbb0",
                "bbbbbbbbbbb1",
                "c0000000"
            ]
        );
        for (i, s) in short.iter().enumerate() {
            assert!(s.len() >= MIN_LEN);
            let matching: Vec<&String> = ids
                .iter()
                .filter(|other| tail(other).unwrap().starts_with(s.as_str()))
                .collect();
            assert_eq!(matching, [&ids[i]], "{s} names exactly one session");
            assert!(is_tail_prefix(s));
        }
    }

    #[test]
    fn random_ids_get_unique_short_forms() {
        let ids: Vec<String> = (0..2000)
            .map(|_| uuid::Uuid::now_v7().to_string())
            .collect();
        let sorted = tails(&ids);
        let mut seen = std::collections::HashSet::new();
        for i in &ids {
            let s = shortest_unique(i, &sorted);
            assert!(s.len() >= MIN_LEN && s.len() <= 12, "{s}");
            assert!(seen.insert(s.clone()), "{s} twice");
            assert_eq!(
                sorted.iter().filter(|t| t.starts_with(s.as_str())).count(),
                1,
                "{s}"
            );
        }
    }

    #[test]
    fn a_shared_tail_or_a_foreign_id_falls_back_to_the_full_id() {
        let a = "019ad9f3-1c2e-7a10-8b00-0123456789ab".to_owned();
        let b = "019ad9f4-0000-7a10-8b00-0123456789ab".to_owned();
        let sorted = tails(&[a.clone(), b.clone()]);
        assert_eq!(shortest_unique(&a, &sorted), a);
        assert_eq!(shortest_unique(&b, &sorted), b);
        assert_eq!(shortest_unique("0191aa-1", &sorted), "0191aa-1");
    }

    #[test]
    fn what_counts_as_a_tail_prefix() {
        assert!(is_tail_prefix("01234567"));
        assert!(is_tail_prefix("0123456789ab"));
        assert!(!is_tail_prefix("0123456"), "too short");
        assert!(!is_tail_prefix("0123456789abc"), "too long");
        assert!(!is_tail_prefix("019ad9f3-1c2e"), "a dash: an id prefix");
        assert!(!is_tail_prefix("0123456%"));
    }
}
