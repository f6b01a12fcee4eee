//! Tests of auto memory on temp directories: save, update (with moves), delete, list,
//! the `MEMORY.md` indexes and the prompt index.

use super::*;

fn dirs() -> (tempfile::TempDir, MemoryDirs) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let dirs = MemoryDirs::new(&base.join("home/.roocode"), &base.join("proj"));
    (tmp, dirs)
}

fn index(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(INDEX_FILE)).unwrap()
}

#[test]
fn directories_follow_the_design() {
    let d = MemoryDirs::new(Path::new("/h/.roocode"), Path::new("/p"));
    assert_eq!(d.user, Path::new("/h/.roocode/memory"));
    assert_eq!(d.project, Path::new("/p/.roocode/memory"));
    assert_eq!(d.dir_for(MemoryType::Feedback), d.user);
    assert_eq!(d.dir_for(MemoryType::Reference), d.project);
}

#[test]
fn slugs() {
    assert_eq!(slug("Prefers pnpm!"), "prefers-pnpm");
    assert_eq!(slug("  Déploiement -- prod  "), "d-ploiement-prod");
    assert_eq!(slug("???"), "memory-note");
    assert_eq!(slug("Memory"), "memory-note");
    assert_eq!(slug(&"a".repeat(200)).len(), 60);
}

#[test]
fn save_writes_frontmatter_file_and_index() {
    let (_t, d) = dirs();
    let path = save(
        &d,
        "Prefers pnpm",
        MemoryType::User,
        "Use pnpm, never npm",
        "The user said: always use pnpm.\n",
    )
    .unwrap();
    assert_eq!(path, d.user.join("prefers-pnpm.md"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "---\nname: Prefers pnpm\ndescription: Use pnpm, never npm\ntype: user\n---\n\n\
         The user said: always use pnpm.\n"
    );
    assert_eq!(
        index(&d.user),
        "- [Prefers pnpm](prefers-pnpm.md) — Use pnpm, never npm\n"
    );
    assert!(!d.project.exists());

    let path = save(
        &d,
        "Deploy: steps",
        MemoryType::Project,
        "How to deploy\nto prod",
        "make deploy",
    )
    .unwrap();
    assert_eq!(path, d.project.join("deploy-steps.md"));
    assert_eq!(
        index(&d.project),
        "- [Deploy: steps](deploy-steps.md) — How to deploy to prod\n"
    );
    let entries = list(&d).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1].name, "Deploy: steps");
    assert_eq!(entries[1].memory_type, MemoryType::Project);
    assert_eq!(entries[1].content, "make deploy");
    // No temp files are left behind.
    let names: Vec<_> = std::fs::read_dir(&d.project).unwrap().collect();
    assert_eq!(names.len(), 2);
}

#[test]
fn names_are_unique_across_directories_and_slugs_do_not_collide() {
    let (_t, d) = dirs();
    save(&d, "Style", MemoryType::Feedback, "d", "c").unwrap();
    let err = save(&d, "style", MemoryType::Project, "d", "c").unwrap_err();
    assert!(matches!(err, MemoryError::Exists { .. }));
    assert!(err.to_string().contains("use action \"update\""), "{err}");
    let other = save(&d, "Style!", MemoryType::User, "d2", "c2").unwrap();
    assert_eq!(other, d.user.join("style-2.md"));
    assert_eq!(
        index(&d.user),
        "- [Style](style.md) — d\n- [Style!](style-2.md) — d2\n"
    );
}

#[test]
fn invalid_inputs_are_refused() {
    let (_t, d) = dirs();
    for (name, desc, content) in [
        (" ", "d", "c"),
        ("a\nb", "d", "c"),
        ("n", " ", "c"),
        ("n", "d", "\n"),
    ] {
        let err = save(&d, name, MemoryType::User, desc, content).unwrap_err();
        assert!(matches!(err, MemoryError::Invalid(_)), "{err}");
    }
    assert!(list(&d).unwrap().is_empty());
}

#[test]
fn update_changes_fields_in_place() {
    let (_t, d) = dirs();
    let path = save(&d, "Tabs", MemoryType::Feedback, "old", "body").unwrap();
    let entry = update(&d, "TABS", Some("new desc"), None, None).unwrap();
    assert_eq!(entry.path, path);
    assert_eq!(entry.content, "body");
    assert_eq!(entry.description, "new desc");
    assert_eq!(index(&d.user), "- [Tabs](tabs.md) — new desc\n");
    let entry = update(&d, "Tabs", None, Some("new body"), None).unwrap();
    assert_eq!(entry.description, "new desc");
    assert_eq!(list(&d).unwrap()[0].content, "new body");
}

#[test]
fn update_moves_between_directories_when_the_scope_changes() {
    let (_t, d) = dirs();
    save(&d, "Other", MemoryType::User, "stays", "x").unwrap();
    let old = save(&d, "Docs", MemoryType::User, "the docs", "https://x").unwrap();
    let entry = update(&d, "Docs", None, None, Some(MemoryType::Reference)).unwrap();
    assert_eq!(entry.path, d.project.join("docs.md"));
    assert!(!old.exists());
    assert_eq!(index(&d.user), "- [Other](other.md) — stays\n");
    assert_eq!(index(&d.project), "- [Docs](docs.md) — the docs\n");
    let moved = &list(&d).unwrap()[1];
    assert_eq!(moved.memory_type, MemoryType::Reference);
    assert_eq!(moved.content, "https://x");
    // Same scope: a type change stays in place.
    let entry = update(&d, "Docs", None, None, Some(MemoryType::Project)).unwrap();
    assert_eq!(entry.path, d.project.join("docs.md"));
}

#[test]
fn update_errors() {
    let (_t, d) = dirs();
    assert!(matches!(
        update(&d, "Nope", Some("x"), None, None),
        Err(MemoryError::NotFound(_))
    ));
    save(&d, "Yes", MemoryType::User, "d", "c").unwrap();
    let err = update(&d, "Yes", None, None, None).unwrap_err();
    assert!(err.to_string().contains("nothing to update"), "{err}");
}

#[test]
fn delete_removes_file_and_index_line() {
    let (_t, d) = dirs();
    save(&d, "A", MemoryType::Project, "a", "a").unwrap();
    let b = save(&d, "B", MemoryType::Project, "b", "b").unwrap();
    let gone = delete(&d, "b").unwrap();
    assert_eq!(gone.path, b);
    assert!(!b.exists());
    assert_eq!(index(&d.project), "- [A](a.md) — a\n");
    delete(&d, "A").unwrap();
    assert!(!d.project.join(INDEX_FILE).exists());
    assert!(matches!(delete(&d, "A"), Err(MemoryError::NotFound(_))));
}

#[test]
fn invalid_files_are_skipped() {
    let (_t, d) = dirs();
    save(&d, "Good", MemoryType::User, "g", "g").unwrap();
    std::fs::write(d.user.join("junk.md"), "no frontmatter").unwrap();
    std::fs::write(d.user.join("bad.md"), "---\nname: x\n---\nbody").unwrap();
    let names: Vec<String> = list(&d).unwrap().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["Good"]);
}

#[test]
fn prompt_index_lists_both_directories() {
    let (_t, d) = dirs();
    assert_eq!(index_for_prompt(&d), None);
    save(&d, "Pnpm", MemoryType::User, "use pnpm", "c").unwrap();
    save(&d, "Deploy", MemoryType::Project, "deploy steps", "c").unwrap();
    let text = index_for_prompt(&d).unwrap();
    assert!(text.starts_with("# Auto memory\n"), "{text}");
    let user = format!(
        "## User memories (files in {})\n- [Pnpm](pnpm.md) — use pnpm",
        d.user.display()
    );
    let project = format!(
        "## Project memories (files in {})\n- [Deploy](deploy.md) — deploy steps",
        d.project.display()
    );
    assert!(text.ends_with(&format!("{user}\n\n{project}")), "{text}");
    delete(&d, "Pnpm").unwrap();
    assert!(!index_for_prompt(&d).unwrap().contains("User memories"));
}
