//! The doctor's trace check: whether the raw request and response bodies of model calls
//! are kept. They would hold the user's code and prompts, so `doctor` says plainly
//! whether they are on disk. This build keeps none; when the flight recorder keeps them
//! (issue 16, `trace.bodies`), this check reports the setting, its cap and their size.

use roocode_protocol::doctor::{CheckStatus, DoctorCheck};

/// The check.
pub(super) fn check() -> DoctorCheck {
    DoctorCheck::new(
        "trace bodies",
        CheckStatus::Ok,
        "not kept: this build does not record the raw request or response bodies of model calls (the sessions' conversations are in the database, as always)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_says_plainly_that_no_body_is_kept() {
        let check = check();
        assert_eq!(check.status, CheckStatus::Ok);
        assert!(check.detail.starts_with("not kept"), "{}", check.detail);
    }
}
