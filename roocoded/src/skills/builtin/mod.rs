//! The skills embedded in the binary (DESIGN.md §7): `commit`, `review` and `test`, and
//! the workflow functions `plan` and `execute` and the `loop` (issue 17).
//! They are ordinary skill files, parsed like any other, and lose to a skill of the
//! same name in any folder.

/// The file name (its stem is the default name) and text of each built-in skill.
pub(crate) const FILES: [(&str, &str); 6] = [
    ("commit.md", include_str!("commit.md")),
    ("execute.md", include_str!("execute.md")),
    ("loop.md", include_str!("loop.md")),
    ("plan.md", include_str!("plan.md")),
    ("review.md", include_str!("review.md")),
    ("test.md", include_str!("test.md")),
];
