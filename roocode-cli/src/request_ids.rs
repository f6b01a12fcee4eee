//! Request ids given on the command line (`approve`, `deny`, `answer`): a full id or a
//! unique prefix among the waiting requests of `pending.list`, resolved client-side.
//! An id that matches nothing is passed to the daemon as given, so that an unknown or
//! already answered request is reported in the daemon's own words.

use roocode_protocol::session::PendingRequest;

use crate::failure::{Failure, UsageError};

/// Most candidates listed in an ambiguity error.
const MAX_LISTED: usize = 5;

/// The waiting request `given` names: `Ok(None)` when none matches.
pub fn find<'a>(
    pending: &'a [PendingRequest],
    given: &str,
) -> Result<Option<&'a PendingRequest>, anyhow::Error> {
    let given = given.trim();
    if given.is_empty() {
        return Err(UsageError("the request id is empty".into()).into());
    }
    if let Some(exact) = pending.iter().find(|p| p.request_id == given) {
        return Ok(Some(exact));
    }
    let matches: Vec<&PendingRequest> = pending
        .iter()
        .filter(|p| p.request_id.starts_with(given))
        .collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => {
            let mut listed: Vec<&str> = many
                .iter()
                .take(MAX_LISTED)
                .map(|p| p.request_id.as_str())
                .collect();
            if many.len() > MAX_LISTED {
                listed.push("…");
            }
            Err(Failure::new(
                "ambiguous_request",
                format!(
                    "the request id prefix {given} is ambiguous: it matches {} waiting requests ({}); give more of it",
                    many.len(),
                    listed.join(", ")
                ),
            )
            .into())
        }
    }
}

/// The error for a request of the wrong kind (`approve` of a question, …).
pub fn wrong_kind(req: &PendingRequest, wanted: &str) -> Failure {
    let how = match req.kind.as_str() {
        "question" => format!(
            "answer it with `roocode-cli answer {} ANSWER...`",
            req.request_id
        ),
        _ => format!(
            "answer it with `roocode-cli approve {id}` or `roocode-cli deny {id}`",
            id = req.request_id
        ),
    };
    Failure::new(
        "wrong_kind",
        format!(
            "{} is a {} request, not a {wanted}; {how}",
            req.request_id, req.kind
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::pending;

    fn list() -> Vec<PendingRequest> {
        vec![
            pending("019a-aa11", "permission"),
            pending("019a-aa22", "permission"),
            pending("019a-b", "question"),
            pending("019a-bc", "question"),
        ]
    }

    #[test]
    fn a_unique_prefix_names_its_request() {
        let l = list();
        assert_eq!(
            find(&l, "019a-aa1").unwrap().unwrap().request_id,
            "019a-aa11"
        );
        assert_eq!(
            find(&l, " 019a-bc ").unwrap().unwrap().request_id,
            "019a-bc"
        );
    }

    #[test]
    fn an_exact_id_wins_over_longer_ones() {
        let l = list();
        assert_eq!(find(&l, "019a-b").unwrap().unwrap().request_id, "019a-b");
    }

    #[test]
    fn unknown_ids_are_left_to_the_daemon() {
        assert!(find(&list(), "zz").unwrap().is_none());
        assert!(find(&[], "019a").unwrap().is_none());
    }

    #[test]
    fn ambiguous_and_empty_prefixes_are_errors() {
        let err = find(&list(), "019a-a").unwrap_err();
        let failure = err.downcast_ref::<Failure>().unwrap();
        assert_eq!(failure.kind, "ambiguous_request");
        assert_eq!(
            failure.message,
            "the request id prefix 019a-a is ambiguous: it matches 2 waiting requests (019a-aa11, 019a-aa22); give more of it"
        );
        assert!(
            find(&list(), " ")
                .unwrap_err()
                .downcast_ref::<UsageError>()
                .is_some()
        );
    }

    #[test]
    fn the_wrong_kind_says_how_to_answer() {
        let l = list();
        assert_eq!(
            wrong_kind(&l[2], "permission").message,
            "019a-b is a question request, not a permission; answer it with `roocode-cli answer 019a-b ANSWER...`"
        );
        assert!(
            wrong_kind(&l[0], "question")
                .message
                .contains("roocode-cli approve 019a-aa11")
        );
    }
}
