//! `roocode-cli completions bash|zsh|fish`: the shell's completion script for every
//! command and option, generated from the command line itself (`clap_complete`), so
//! it never falls behind. How to install each is in the README.

use clap::{Args, ValueEnum};

use crate::output::out;

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// A shell with completion scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    fn generator(self) -> clap_complete::Shell {
        match self {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// The completion script of `cmd` (the whole command line) for `shell`.
pub fn script(shell: Shell, mut cmd: clap::Command) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell.generator(), &mut cmd, "roocode-cli", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Prints the script; returns the exit status.
pub fn run(args: &CompletionsArgs, cmd: clap::Command) -> i32 {
    out(&script(args.shell, cmd));
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn script_of(shell: Shell) -> String {
        script(shell, crate::Cli::command())
    }

    #[test]
    fn every_script_knows_the_commands() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let s = script_of(shell);
            for command in ["send", "rewind", "attach", "completions", "show"] {
                assert!(s.contains(command), "{shell:?} lacks {command}");
            }
            assert!(s.contains("roocode-cli"), "{shell:?}");
            // Options and their values, too.
            assert!(s.contains("stream-json"), "{shell:?}");
            let color = match shell {
                Shell::Bash | Shell::Zsh => "--color",
                Shell::Fish => "-l color",
            };
            assert!(s.contains(color), "{shell:?}");
        }
    }

    #[test]
    fn bash_accepts_the_bash_script() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("roocode-cli.bash");
        std::fs::write(&path, script_of(Shell::Bash)).unwrap();
        let checked = std::process::Command::new("bash")
            .arg("-n")
            .arg(&path)
            .output()
            .expect("bash runs");
        assert!(
            checked.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
        // …and it registers a completion for the command when sourced.
        let listed = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && complete -p roocode-cli",
                path.display()
            ))
            .output()
            .expect("bash runs");
        assert!(
            String::from_utf8_lossy(&listed.stdout).contains("roocode-cli"),
            "{listed:?}"
        );
    }
}
