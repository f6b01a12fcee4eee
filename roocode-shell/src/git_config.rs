//! Git settings whose value git runs as a command (`alias.x=!…`, `core.pager`,
//! `core.sshCommand`, `core.fsmonitor`, `diff.*.textconv`, `credential.helper`, …):
//! given on the command line (`git -c key=value …`) the value is walked as the command
//! it is; `core.hooksPath` and `--config-env` (a value from the environment) cannot be
//! seen through.

use super::ast::Word;
use super::wrappers::Unwrap;

/// Git settings whose value is a command git runs (lower case; `*` any middle part).
const GIT_EXEC_KEYS: [&str; 22] = [
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "pager.*",
    "uploadpack.packobjectshook",
    "difftool.*.cmd",
    "mergetool.*.cmd",
];

/// True if git runs the value of `key` as a command.
pub fn git_key_runs(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    if key.starts_with("alias.") || key == "core.hookspath" {
        return true;
    }
    GIT_EXEC_KEYS
        .iter()
        .any(|pattern| match pattern.split_once(".*.") {
            Some((head, tail)) => {
                key.starts_with(&format!("{head}."))
                    && key.ends_with(&format!(".{tail}"))
                    && key.len() > head.len() + tail.len() + 2
            }
            None => match pattern.strip_suffix(".*") {
                Some(head) => key.starts_with(&format!("{head}.")),
                None => key == *pattern,
            },
        })
}

/// The command git would run for `key=value`: an alias `!cmd` or another git
/// command line, a hook directory (unknowable), or the value itself.
pub fn git_key_script(key: &str, value: &str) -> Result<String, String> {
    let lower = key.to_ascii_lowercase();
    if lower == "core.hookspath" {
        return Err(format!(
            "core.hooksPath={value} makes git run the hooks in {value}, which RooCode cannot see"
        ));
    }
    if lower.starts_with("alias.") {
        return Ok(match value.strip_prefix('!') {
            Some(script) => script.to_string(),
            None => format!("git {value}"),
        });
    }
    Ok(value.strip_prefix('!').unwrap_or(value).to_string())
}

/// `git -c key=value …` and `git --config-env=key=VAR …` with a key whose value git runs.
pub(super) fn unwrap(args: &[Word]) -> Unwrap {
    let texts: Vec<String> = args.iter().map(Word::shell_text).collect();
    let mut scripts = Vec::new();
    let mut i = 0;
    while let Some(a) = texts.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let pair = match a.as_str() {
            "-c" => {
                i += 1;
                texts.get(i).cloned()
            }
            "--config-env" => {
                i += 1;
                if let Some(kv) = texts.get(i)
                    && let Some((key, _)) = kv.split_once('=')
                    && git_key_runs(key)
                {
                    return Unwrap::Opaque(format!(
                        "git --config-env={kv} runs a command taken from the environment"
                    ));
                }
                None
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => {
                i += 1;
                None
            }
            other => {
                if let Some(kv) = other.strip_prefix("--config-env=")
                    && let Some((key, _)) = kv.split_once('=')
                    && git_key_runs(key)
                {
                    return Unwrap::Opaque(format!(
                        "git --config-env={kv} runs a command taken from the environment"
                    ));
                }
                None
            }
        };
        if let Some(pair) = pair
            && let Some((key, value)) = pair.split_once('=')
            && git_key_runs(key)
        {
            match git_key_script(key, value) {
                Ok(script) => scripts.push(script),
                Err(why) => return Unwrap::Opaque(why),
            }
        }
        i += 1;
    }
    if scripts.is_empty() {
        Unwrap::None
    } else {
        Unwrap::Script(scripts.join("\n"))
    }
}
