//! `roocode-cli send` on a real terminal (inside tmux): it asks for permission
//! interactively, and a prompt closes when another terminal answers first.

use std::process::Command;
use std::time::Duration;

use roocode_tests::mock_llm::{Reply, Script, ToolCall};
use serde_json::json;

use crate::harness::{PATIENCE, World, bin};

/// A tmux server of this test alone.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    pub fn new(name: &str) -> Tmux {
        Tmux {
            socket: format!("roocode-e2e-{}-{name}", std::process::id()),
        }
    }

    /// The server's name (`tmux -L NAME`).
    pub fn socket_name(&self) -> String {
        self.socket.clone()
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (CI installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn screen_of(&self, target: &str) -> String {
        self.run(&["capture-pane", "-p", "-t", target])
    }

    /// Waits until the screen shows `text` (tmux has no event to wait on; the screen is
    /// polled, bounded by PATIENCE).
    async fn wait_for(&self, text: &str) -> String {
        self.wait_for_on("t", text).await
    }

    /// Waits until the screen of the tmux session `target` shows `text`.
    pub async fn wait_for_on(&self, target: &str, text: &str) -> String {
        let poll = async {
            loop {
                let screen = self.screen_of(target);
                if screen.contains(text) {
                    return screen;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        match tokio::time::timeout(PATIENCE, poll).await {
            Ok(screen) => screen,
            Err(_) => panic!(
                "the screen never showed {text:?}:\n{}",
                self.screen_of(target)
            ),
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// The shell command that runs `roocode-cli args…` with the world's environment.
fn cli_line(w: &World, args: &str) -> String {
    line_for(w, "roocode-cli", args)
}

/// The shell command that runs the workspace binary `program args…` with the world's
/// environment, then reports its exit status and stays on screen.
pub fn line_for(w: &World, program: &str, args: &str) -> String {
    format!(
        "env -i TERM=xterm-256color PATH='{path}' HOME='{home}' ROOCODE_HOME='{home}' ROOCODE_DAEMON_BIN='{daemon}' \
         ROOCODE_MODEL=anthropic/claude-sonnet-4-5 ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL='{url}' \
         '{cli}' {args}; echo EXIT=$?; sleep 600",
        path = std::env::var("PATH").unwrap_or_default(),
        home = w.home.path().display(),
        daemon = bin("roocoded").display(),
        url = w.mock.base_url(),
        cli = bin(program).display(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_on_a_terminal_asks_and_the_answer_is_typed() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "echo hi > made.txt"}),
            )]))
            .reply(Reply::text("Created made.txt.")),
    )
    .await;
    let t = Tmux::new("ask");
    let project = w.project_path();
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "150",
        "-y",
        "40",
        "-c",
        &project.display().to_string(),
        &cli_line(&w, "send 'make a file'"),
    ]);
    let screen = t.wait_for("[y] allow once").await;
    assert!(
        screen.contains("Bash wants to run: echo hi > made.txt"),
        "{screen}"
    );
    t.run(&["send-keys", "-t", "t", "y", "Enter"]);
    let screen = t.wait_for("EXIT=").await;
    assert!(
        screen.contains("Created made.txt.") && screen.contains("EXIT=0"),
        "{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("made.txt")).unwrap(),
        "hi\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_closes_when_another_terminal_answers_first() {
    let w = World::new(
        Script::new()
            .reply(Reply::tool_calls(vec![ToolCall::new(
                "Bash",
                json!({"command": "echo no > nope.txt"}),
            )]))
            .reply(Reply::text("Fine, I will not.")),
    )
    .await;
    let t = Tmux::new("elsewhere");
    let project = w.project_path();
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "150",
        "-y",
        "40",
        "-c",
        &project.display().to_string(),
        &cli_line(&w, "send 'make another file'"),
    ]);
    t.wait_for("[y] allow once").await;
    let pending = w.run(&["pending", "--json"]).await.json();
    let req = pending[0]["request_id"].as_str().unwrap().to_string();
    let deny = w.run(&["deny", &req, "--feedback", "not today"]).await;
    assert_eq!(deny.code, 0, "{deny:?}");
    let screen = t.wait_for("EXIT=").await;
    assert!(screen.contains("answered elsewhere by cli"), "{screen}");
    assert!(
        screen.contains("Fine, I will not.") && screen.contains("EXIT=0"),
        "{screen}"
    );
    assert!(!project.join("nope.txt").exists());
}
