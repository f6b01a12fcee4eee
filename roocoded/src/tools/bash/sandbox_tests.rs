//! Bash inside the real OS sandbox (bubblewrap): what commands may write, read and
//! keep, and that timeouts still kill the whole group. Skipped, with a message, where
//! bubblewrap cannot run (`.ci/run` installs it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::config::Config;
use crate::sandbox::{self, CommandSandbox, Mechanism, SandboxSettings, SessionPlaces};
use crate::tools::test_support::Project;

/// A project whose commands run in bubblewrap, with a fake home holding `.ssh/id_rsa`
/// and a RooCode home; `None` (test skipped) where bubblewrap cannot run.
struct Boxed {
    p: Project,
    home: tempfile::TempDir,
    roocode: tempfile::TempDir,
}

fn boxed(settings: SandboxSettings) -> Option<Boxed> {
    let caps = sandbox::capabilities();
    if let Err(why) = &caps.bwrap {
        eprintln!("skipped: {why}");
        return None;
    }
    let mut p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let roocode = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), "PRIVATE").unwrap();
    std::fs::write(roocode.path().join("config.yaml"), "model: x\n").unwrap();
    p.write(".git/config", "[core]\n");
    p.write(".git/hooks/README", "");
    p.write("src/lib.rs", "");
    p.write(".roocode/config.yaml", "");
    p.ctx
        .env
        .insert("PATH".into(), std::env::var("PATH").unwrap());
    p.ctx
        .env
        .insert("HOME".into(), home.path().display().to_string());
    p.ctx
        .env
        .insert("ANTHROPIC_API_KEY".into(), "sk-ant-secret".into());
    p.ctx.env.insert("ROOCODE_HOME".into(), "/nowhere".into());
    let places = SessionPlaces {
        user_dir: roocode.path(),
        roocode_dirs: vec![roocode.path().to_path_buf()],
        workspace: &p.root,
        cwd: &p.root,
        client_env: &p.ctx.env,
    };
    let sandbox = CommandSandbox::from_settings(&places, &settings, &Config::default(), caps);
    assert!(matches!(sandbox.mechanism, Mechanism::Bubblewrap(_)));
    p.ctx.sandbox = Some(Arc::new(sandbox));
    Some(Boxed { p, home, roocode })
}

async fn sh(p: &Project, input: serde_json::Value) -> (String, bool) {
    let out = p.run("Bash", input).await.unwrap();
    (out.content, out.is_error)
}

#[tokio::test]
async fn writes_outside_the_workspace_fail_with_the_hint() {
    let Some(b) = boxed(SandboxSettings::default()) else {
        return;
    };
    let outside = b.p.root.parent().unwrap().join("outside.txt");
    let (text, is_error) = sh(
        &b.p,
        json!({"command": format!("echo x > '{}'", outside.display())}),
    )
    .await;
    assert!(is_error, "{text}");
    assert!(text.contains("Read-only file system"), "{text}");
    assert!(
        text.contains("The OS sandbox probably stopped this command"),
        "{text}"
    );
    assert!(!outside.exists());
    // Inside the workspace, and in TMPDIR, writes work.
    let (text, is_error) = sh(
        &b.p,
        json!({"command": "echo ok > src/new.txt && echo t > \"$TMPDIR/t\" && cat src/new.txt \"$TMPDIR/t\""}),
    )
    .await;
    assert_eq!((text.as_str(), is_error), ("ok\nt", false));
    assert!(b.p.root.join("src/new.txt").exists());
}

#[tokio::test]
async fn git_config_and_hooks_are_read_only_and_secrets_hidden() {
    let Some(b) = boxed(SandboxSettings::default()) else {
        return;
    };
    for cmd in [
        "printf '[core]\\n\\tfsmonitor = evil\\n' >> .git/config",
        "echo evil > .git/hooks/pre-commit",
        "mkdir -p .roocode && echo 'permissions: {allow: [\"Bash(*)\"]}' > .roocode/config.local.yaml",
    ] {
        let (text, is_error) = sh(&b.p, json!({"command": cmd})).await;
        assert!(is_error, "{cmd}: {text}");
    }
    assert_eq!(
        std::fs::read_to_string(b.p.root.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!b.p.root.join(".git/hooks/pre-commit").exists());
    assert!(!b.p.root.join(".roocode/config.local.yaml").exists());
    let (text, _) = sh(
        &b.p,
        json!({"command": "ls -A ~/.ssh | wc -l; cat ~/.ssh/id_rsa"}),
    )
    .await;
    assert!(!text.contains("PRIVATE"), "{text}");
    assert!(text.starts_with('0'), "{text}");
    assert!(b.home.path().join(".ssh/id_rsa").exists());
    // RooCode's home is empty inside.
    let (text, _) = sh(
        &b.p,
        json!({"command": format!("ls -A '{}' | wc -l", b.roocode.path().display())}),
    )
    .await;
    assert_eq!(text, "0");
}

#[tokio::test]
async fn environment_has_no_provider_keys_and_a_private_tmpdir() {
    let Some(b) = boxed(SandboxSettings::default()) else {
        return;
    };
    let (text, _) = sh(&b.p, json!({"command": "env"})).await;
    assert!(!text.contains("sk-ant-secret"), "{text}");
    assert!(!text.contains("ROOCODE_"), "{text}");
    assert!(text.contains("TMPDIR=/"), "{text}");
    assert!(text.contains("HOME="), "{text}");
}

#[tokio::test]
async fn the_shell_directory_persists_and_the_group_dies_on_timeout() {
    let Some(b) = boxed(SandboxSettings::default()) else {
        return;
    };
    sh(&b.p, json!({"command": "cd src"})).await;
    let (text, _) = sh(&b.p, json!({"command": "pwd"})).await;
    assert_eq!(text, b.p.root.join("src").display().to_string());
    let started = Instant::now();
    let (text, is_error) = sh(
        &b.p,
        json!({"command": "sleep 300 & sleep 300 & wait", "timeout": 500}),
    )
    .await;
    assert!(is_error && text.contains("timed out"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(6));
    // Nothing of ours is still sleeping.
    let leftover = std::process::Command::new("pgrep")
        .args(["-f", "^sleep 300$"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let ours: Vec<&str> = leftover
        .lines()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/environ"))
                .is_ok_and(|e| e.contains(&b.home.path().display().to_string()))
        })
        .collect();
    assert!(ours.is_empty(), "left running: {ours:?}");
}

#[tokio::test]
async fn network_deny_cuts_loopback_and_disable_runs_unconfined() {
    let Some(b) = boxed(SandboxSettings {
        network: crate::config::SandboxNetwork::Deny,
        ..SandboxSettings::default()
    }) else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe =
        format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo open || echo closed");
    let (text, _) = sh(&b.p, json!({"command": probe})).await;
    assert_eq!(text, "closed");
    let (text, _) = sh(
        &b.p,
        json!({"command": probe, "dangerously_disable_sandbox": true}),
    )
    .await;
    assert_eq!(text, "open");
    let outside = b.p.root.parent().unwrap().join("outside.txt");
    let (_, is_error) = sh(
        &b.p,
        json!({"command": format!("echo x > '{}'", outside.display()), "dangerouslyDisableSandbox": true}),
    )
    .await;
    assert!(!is_error && outside.exists());
}

#[tokio::test]
async fn required_without_bubblewrap_refuses_commands_and_says_what_to_do() {
    let mut p = Project::new();
    let caps = sandbox::Capabilities {
        bwrap: Err("bubblewrap is not installed".into()),
        landlock: Ok(()),
    };
    let settings = SandboxSettings {
        mode: crate::config::SandboxMode::Required,
        ..SandboxSettings::default()
    };
    let env = p.ctx.env.clone();
    let places = SessionPlaces {
        user_dir: &p.root,
        roocode_dirs: vec![],
        workspace: &p.root,
        cwd: &p.root,
        client_env: &env,
    };
    let sandbox = CommandSandbox::from_settings(&places, &settings, &Config::default(), &caps);
    p.ctx.sandbox = Some(Arc::new(sandbox));
    let err = p
        .run("Bash", json!({"command": "touch made"}))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("sandbox.mode is `required`"), "{err}");
    assert!(err.contains("Install bubblewrap"), "{err}");
    assert!(!p.root.join("made").exists());
}

#[tokio::test]
async fn git_still_commits_with_its_config_read_only() {
    let Some(b) = boxed(SandboxSettings::default()) else {
        return;
    };
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no git");
        return;
    }
    std::fs::remove_dir_all(b.p.root.join(".git")).unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&b.p.root)
        .status()
        .unwrap();
    assert!(init.success());
    let (text, is_error) = sh(
        &b.p,
        json!({"command": "git add -A && git -c user.name=t -c user.email=t@e commit -qm one && git log --oneline | wc -l"}),
    )
    .await;
    assert_eq!((text.as_str(), is_error), ("1", false));
    let (text, is_error) = sh(&b.p, json!({"command": "git config core.fsmonitor evil"})).await;
    assert!(is_error, "{text}");
}
