//! Tests of the Glob tool on temp directories.

use serde_json::json;

use super::plan;
use crate::tools::ToolError;
use crate::tools::test_support::Project;

#[tokio::test]
async fn newest_first_with_path_ties_broken_by_name() {
    let p = Project::new();
    for (rel, t) in [
        ("old.rs", 1),
        ("src/new.rs", 30),
        ("src/mid.rs", 20),
        ("b.rs", 10),
        ("a.rs", 10),
    ] {
        p.write(rel, "");
        p.touch(rel, t);
    }
    p.write("notes.txt", "");
    let out = p.ok("Glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out, "src/new.rs\nsrc/mid.rs\na.rs\nb.rs\nold.rs");
    // `*` does not cross directories.
    let out = p.ok("Glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(out, "a.rs\nb.rs\nold.rs");
}

#[tokio::test]
async fn directory_prefix_and_path_narrow_the_search() {
    let p = Project::new();
    p.write("src/pkg/test_a.py", "");
    p.write("src/test_b.py", "");
    p.write("tests/test_c.py", "");
    p.touch("src/pkg/test_a.py", 2);
    p.touch("src/test_b.py", 1);
    let out = p.ok("Glob", json!({"pattern": "src/**/test_*.py"})).await;
    assert_eq!(out, "src/pkg/test_a.py\nsrc/test_b.py");
    let out = p
        .ok("Glob", json!({"pattern": "*.py", "path": "tests"}))
        .await;
    assert_eq!(out, "tests/test_c.py");
    let abs = format!("{}/tests/*.py", p.root.display());
    assert_eq!(
        p.ok("Glob", json!({"pattern": abs})).await,
        "tests/test_c.py"
    );
}

#[tokio::test]
async fn results_outside_the_cwd_are_absolute() {
    let mut p = Project::new();
    p.write("top.md", "");
    p.write("sub/inner.md", "");
    p.touch("top.md", 1);
    p.touch("sub/inner.md", 2);
    p.ctx.scope.cwd = p.path("sub");
    let out = p
        .ok("Glob", json!({"pattern": "**/*.md", "path": ".."}))
        .await;
    assert_eq!(out, format!("inner.md\n{}", p.path("top.md").display()));
}

#[tokio::test]
async fn gitignore_rooignore_and_hidden_files_are_respected() {
    let p = Project::new();
    std::fs::create_dir(p.path(".git")).unwrap();
    p.write(".gitignore", "target/\n*.log\n");
    p.write(".rooignore", "secret/\n");
    p.write("target/debug/out.rs", "");
    p.write("app.log", "");
    p.write("secret/key.rs", "");
    p.write(".hidden/h.rs", "");
    p.write("src/lib.rs", "");
    assert_eq!(p.ok("Glob", json!({"pattern": "**/*"})).await, "src/lib.rs");
    // Naming a hidden component opts into hidden files; .git stays out.
    p.write(".git/config.rs", "");
    assert_eq!(
        p.ok("Glob", json!({"pattern": ".hidden/*.rs"})).await,
        ".hidden/h.rs"
    );
    assert_eq!(
        p.ok("Glob", json!({"pattern": "**/.gitignore"})).await,
        ".gitignore"
    );
}

#[tokio::test]
async fn gitignore_counts_without_a_repository_too() {
    let p = Project::new();
    p.write(".gitignore", "build/\n");
    p.write("build/gen.rs", "");
    p.write("main.rs", "");
    assert_eq!(p.ok("Glob", json!({"pattern": "**/*.rs"})).await, "main.rs");
}

#[tokio::test]
async fn at_most_100_results_with_a_note() {
    let p = Project::new();
    for i in 0..105 {
        let rel = format!("f{i:03}.txt");
        p.write(&rel, "");
        p.touch(&rel, i);
    }
    let out = p.ok("Glob", json!({"pattern": "*.txt"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(lines[0], "f104.txt");
    assert_eq!(lines[99], "f005.txt");
    assert_eq!(
        lines[100],
        "(Showing the 100 most recently modified of 105 matching files; 5 more not shown. \
         Use a narrower pattern or path.)"
    );
}

#[tokio::test]
async fn nothing_found_and_bad_input() {
    let p = Project::new();
    p.write("a.txt", "");
    assert_eq!(
        p.ok("Glob", json!({"pattern": "**/*.zig"})).await,
        "No files found"
    );
    assert!(matches!(
        p.run("Glob", json!({"pattern": "*.{rs"})).await,
        Err(ToolError::InvalidInput(_))
    ));
    assert_eq!(
        p.run("Glob", json!({"pattern": "*", "path": "missing"}))
            .await,
        Err(ToolError::Failed(format!(
            "Directory does not exist: {}",
            p.path("missing").display()
        )))
    );
    assert!(matches!(
        p.run("Glob", json!({"pattern": "*", "path": "a.txt"}))
            .await,
        Err(ToolError::InvalidInput(_))
    ));
    assert!(matches!(
        p.run("Glob", json!({"pattern": "/etc/*"})).await,
        Err(ToolError::Failed(_))
    ));
}

#[tokio::test]
async fn symlinks_are_not_followed_out() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("leak.rs"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), p.path("link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("leak.rs"), p.path("file.rs")).unwrap();
    p.write("real.rs", "");
    assert_eq!(p.ok("Glob", json!({"pattern": "**/*.rs"})).await, "real.rs");
}

#[test]
fn plans_split_literal_prefixes() {
    let p = Project::new();
    let plan_of = |pattern: &str, path: Option<&str>| {
        let plan = plan(pattern, path, &p.ctx);
        (plan.dir, plan.pattern)
    };
    assert_eq!(plan_of("**/*.rs", None), (p.root.clone(), "**/*.rs".into()));
    assert_eq!(
        plan_of("src/**/t_*.py", None),
        (p.path("src"), "**/t_*.py".into())
    );
    assert_eq!(
        plan_of("./a/b.rs", Some("x")),
        (p.path("x/a"), "b.rs".into())
    );
    assert_eq!(
        plan_of("/etc/*.conf", None),
        ("/etc".into(), "*.conf".into())
    );
    assert_eq!(plan_of("../*", None), (p.path(".."), "*".into()));
}

#[tokio::test]
async fn files_that_hold_credentials_are_left_out_with_a_note() {
    let p = Project::new();
    p.write(".env", "");
    p.write(".env.example", "");
    p.write("keys/id_ed25519", "");
    p.write("keys/id_ed25519.pub", "");
    let out = p.ok("Glob", json!({"pattern": "**/.env*"})).await;
    assert_eq!(
        out,
        ".env.example\n(1 file that usually holds credentials was left out of this search: \
         .env. To look inside one, Read it; RooCode asks the user first.)"
    );
    let out = p.ok("Glob", json!({"pattern": "keys/*"})).await;
    assert!(out.starts_with("keys/id_ed25519.pub\n(1 file"), "{out}");
}

#[tokio::test]
async fn control_characters_in_names_are_shown_escaped() {
    let p = Project::new();
    p.write("a\nb.rs", "x");
    p.write("c\u{1b}[31m.rs", "x");
    let out = p.ok("Glob", json!({"pattern": "*.rs"})).await;
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["a\\nb.rs", "c\\x1b[31m.rs"]);
}
