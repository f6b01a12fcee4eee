//! The skills embedded in the binary (DESIGN.md §7): `commit`, `review` and `test`.
//! They are ordinary skill files, parsed like any other, and lose to a skill of the
//! same name in any folder.

/// The file name (its stem is the default name) and text of each built-in skill.
pub(crate) const FILES: [(&str, &str); 3] = [
    ("commit.md", include_str!("commit.md")),
    ("review.md", include_str!("review.md")),
    ("test.md", include_str!("test.md")),
];
