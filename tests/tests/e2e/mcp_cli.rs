//! `roocode-cli mcp add|remove|enable|disable`: the real binary edits the config files
//! of each scope (no daemon involved) — local `.roocode/config.local.yaml` of the
//! project (the nearest ancestor with `.git`), project `.mcp.json`, user `config.yaml`
//! of the user directory — keeping what else the files say, and refuses what it cannot
//! do safely with a message saying what to do, leaving the file as it was.

use std::path::{Path, PathBuf};

use roocode_tests::mock_llm::Script;

use crate::harness::{Output, World};

/// A world whose project is a git checkout.
async fn world() -> World {
    let w = World::new(Script::new()).await;
    std::fs::create_dir(w.project.path().join(".git")).unwrap();
    w
}

/// `roocode-cli mcp args…` in the project.
async fn mcp(w: &World, args: &[&str]) -> Output {
    w.run(&[&["mcp"], args].concat()).await
}

/// `roocode-cli mcp args…` in `dir`, `unset` variables removed.
async fn mcp_in(w: &World, dir: &Path, unset: &[&str], args: &[&str]) -> Output {
    let mut cmd = w.cli(&[&["mcp"], args].concat());
    cmd.current_dir(dir);
    for name in unset {
        cmd.env_remove(name);
    }
    let out = cmd.output().await.unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn ok(out: &Output) {
    assert_eq!(out.code, 0, "{out:?}");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Paths {
    local: PathBuf,
    mcp_json: PathBuf,
    user: PathBuf,
}

fn paths(w: &World) -> Paths {
    let root = w.project_path();
    Paths {
        local: root.join(".roocode/config.local.yaml"),
        mcp_json: root.join(".mcp.json"),
        user: w.home.path().join("config.yaml"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_is_the_default_scope_and_the_project_is_found_from_a_subdirectory() {
    let w = world().await;
    let p = paths(&w);
    let sub = w.project.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let out = mcp_in(
        &w,
        &sub,
        &[],
        &[
            "add",
            "files",
            "-e",
            "TOKEN=${TOKEN}",
            "--",
            "npx",
            "-y",
            "@x/files",
            "--root",
            "a: b # c",
        ],
    )
    .await;
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "Added stdio MCP server files to {} (scope local)\n",
            p.local.display()
        )
    );
    let written = "mcp_servers:\n  files:\n    type: \"stdio\"\n    command: \"npx\"\n    args: [\"-y\", \"@x/files\", \"--root\", \"a: b # c\"]\n    env: {\"TOKEN\": \"${TOKEN}\"}\n";
    assert_eq!(read(&p.local), written);
    assert_eq!(
        read(&p.local.with_file_name(".gitignore")),
        "config.local.yaml\n"
    );
    assert!(!sub.join(".roocode").exists());

    // The same name again: refused, the file untouched.
    let out = mcp(&w, &["add", "files", "--", "other"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("already has an MCP server named `files`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("roocode-cli mcp remove files --scope local"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&p.local), written);

    let out = mcp(&w, &["remove", "files"]).await;
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "Removed MCP server files from {} (scope local)\n",
            p.local.display()
        )
    );
    assert_eq!(read(&p.local), "mcp_servers:\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_servers_go_to_mcp_json_and_are_switched_off_locally() {
    let w = world().await;
    let p = paths(&w);
    let before = "{\n  \"zzz\": {\"kept\": true},\n  \"mcpServers\": {}\n}\n";
    write(&p.mcp_json, before);
    let out = mcp(
        &w,
        &[
            "add",
            "--transport",
            "http",
            "docs",
            "https://example.com/mcp",
            "--header",
            "Authorization: Bearer ${DOCS_KEY}",
            "-s",
            "project",
        ],
    )
    .await;
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "Added http MCP server docs to {} (scope project)\nProject servers start only once approved: roocode-cli mcp approve docs\n",
            p.mcp_json.display()
        )
    );
    let added = "{\n  \"zzz\": {\"kept\": true},\n  \"mcpServers\": {\n    \"docs\": {\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\",\n      \"headers\": {\"Authorization\": \"Bearer ${DOCS_KEY}\"}\n    }\n  }\n}\n";
    assert_eq!(read(&p.mcp_json), added);

    // For yourself: a switch in the local file, removed again by `enable`.
    let out = mcp(&w, &["disable", "docs"]).await;
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "Disabled MCP server docs in {} (scope local; it is defined in {}, scope project)\n",
            p.local.display(),
            p.mcp_json.display()
        )
    );
    assert_eq!(
        read(&p.local),
        "mcp_servers:\n  docs:\n    enabled: false\n"
    );
    assert_eq!(read(&p.mcp_json), added);
    let out = mcp(&w, &["disable", "docs"]).await;
    ok(&out);
    assert!(out.stdout.contains("already disabled"), "{}", out.stdout);
    ok(&mcp(&w, &["enable", "docs"]).await);
    assert_eq!(read(&p.local), "mcp_servers:\n");

    // For everyone: `enabled` in the .mcp.json entry (the daemon reads it there).
    ok(&mcp(&w, &["disable", "docs", "--scope", "project"]).await);
    let disabled = read(&p.mcp_json);
    assert!(
        disabled.contains("\"headers\": {\"Authorization\": \"Bearer ${DOCS_KEY}\"},\n      \"enabled\": false\n    }"),
        "{disabled}"
    );
    // Switched on again for yourself: a local switch wins over the project's `false`.
    let out = mcp(&w, &["enable", "docs"]).await;
    ok(&out);
    assert!(
        out.stdout.starts_with("Enabled MCP server docs in "),
        "{}",
        out.stdout
    );
    assert_eq!(read(&p.local), "mcp_servers:\n  docs:\n    enabled: true\n");
    ok(&mcp(&w, &["enable", "docs", "-s", "project"]).await);
    assert_eq!(read(&p.mcp_json), added);

    // Removing the server takes its left-over local switch too.
    let out = mcp(&w, &["remove", "docs"]).await;
    ok(&out);
    assert_eq!(
        out.stdout,
        format!(
            "Removed MCP server docs from {} (scope project)\nRemoved the left-over switch of docs from {} (scope local)\n",
            p.mcp_json.display(),
            p.local.display()
        )
    );
    assert_eq!(read(&p.mcp_json), before);
    assert_eq!(read(&p.local), "mcp_servers:\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_servers_keep_the_file_comments_and_follow_roocode_home() {
    let w = world().await;
    let p = paths(&w);
    write(
        &p.user,
        "# my settings\nmodel: anthropic/x  # the default\n",
    );
    let out = mcp(&w, &["add", "-s", "user", "notes", "--", "notes-server"]).await;
    ok(&out);
    assert_eq!(
        read(&p.user),
        "# my settings\nmodel: anthropic/x  # the default\nmcp_servers:\n  notes:\n    type: \"stdio\"\n    command: \"notes-server\"\n"
    );
    ok(&mcp(&w, &["disable", "notes", "--scope", "user"]).await);
    assert!(read(&p.user).ends_with("    command: \"notes-server\"\n    enabled: false\n"));
    ok(&mcp(&w, &["enable", "notes", "--scope", "user"]).await);
    assert!(read(&p.user).ends_with("    command: \"notes-server\"\n"));

    // The project's .mcp.json gets no switches of other scopes' servers.
    let out = mcp(&w, &["disable", "notes", "--scope", "project"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("for yourself (scope local)"),
        "{}",
        out.stderr
    );
    assert!(!p.mcp_json.exists());

    // Without ROOCODE_HOME, the user directory is ~/.roocode.
    let out = mcp_in(
        &w,
        w.project.path(),
        &["ROOCODE_HOME"],
        &["add", "-s", "user", "h", "--", "h"],
    )
    .await;
    ok(&out);
    let home_file = w.home.path().join(".roocode/config.yaml");
    assert!(read(&home_file).contains("  h:\n"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_finds_the_one_scope_or_asks_which() {
    let w = world().await;
    let p = paths(&w);
    ok(&mcp(&w, &["add", "-s", "user", "gh", "--", "gh-user"]).await);
    ok(&mcp(&w, &["add", "gh", "--", "gh-local"]).await);
    let (user, local) = (read(&p.user), read(&p.local));
    let out = mcp(&w, &["remove", "gh"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("several scopes"), "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("user ({})", p.user.display())),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("local ({})", p.local.display())),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--scope"), "{}", out.stderr);
    assert_eq!((read(&p.user), read(&p.local)), (user, local));

    ok(&mcp(&w, &["remove", "gh", "--scope", "user"]).await);
    assert_eq!(read(&p.user), "mcp_servers:\n");
    let out = mcp(&w, &["remove", "gh", "--scope", "user"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("use --scope local"), "{}", out.stderr);
    ok(&mcp(&w, &["remove", "gh"]).await);

    let out = mcp(&w, &["remove", "gh"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    for file in [&p.user, &p.mcp_json, &p.local] {
        assert!(
            out.stderr.contains(&file.display().to_string()),
            "{}",
            out.stderr
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mistakes_are_refused_and_leave_the_files_alone() {
    let w = world().await;
    let p = paths(&w);
    for (args, code, says) in [
        (
            &["add", "bad.name", "--", "x"][..],
            2,
            "mcp__bad.name__TOOL",
        ),
        (
            &["add", "-t", "sse", "old", "https://h/sse"],
            2,
            "use `--transport http`",
        ),
        (
            &["add", "-t", "http", "h", "https://h", "-e", "A=b"],
            2,
            "--env is for stdio",
        ),
        (
            &["add", "s", "-e", "1A=b", "--", "x"],
            2,
            "not a valid name",
        ),
        (&["add", "s", "npx", "-y"], 2, "-- -y"),
        (&["disable", "nothing"], 1, "no MCP server named `nothing`"),
        (&["remove", "a b"], 2, "invalid MCP server name"),
    ] {
        let out = mcp(&w, args).await;
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
    assert!(!p.local.exists() && !p.mcp_json.exists() && !p.user.exists());

    // A local server cannot be switched from the user file, which it wins over.
    ok(&mcp(&w, &["add", "mine", "--", "x"]).await);
    let out = mcp(&w, &["disable", "mine", "--scope", "user"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("--scope local"), "{}", out.stderr);
    assert!(!p.user.exists());

    for (text, says) in [
        ("mcp_servers: {a: {command: a}}\n", "flow style"),
        ("mcp_servers:\n  a: [\n", "not valid YAML"),
    ] {
        write(&p.local, text);
        let out = mcp(&w, &["add", "b", "--", "b"]).await;
        assert_eq!(out.code, 1, "{out:?}");
        assert!(out.stderr.contains(says), "{}", out.stderr);
        assert!(out.stderr.contains("nothing was changed"), "{}", out.stderr);
        assert_eq!(read(&p.local), text);
    }
    write(&p.mcp_json, "{\"mcpServers\": ");
    let out = mcp(&w, &["add", "-s", "project", "b", "--", "b"]).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("not valid JSON"), "{}", out.stderr);
    assert_eq!(read(&p.mcp_json), "{\"mcpServers\": ");
}
