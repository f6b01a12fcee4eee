//! The note added to a failed command's result when the sandbox probably stopped it:
//! its output says "Read-only file system", "Permission denied", "Operation not
//! permitted" or "Device or resource busy" (a rename over one of the read-only files
//! bound into the workspace, as `git config` does) about a path commands may not write.

use std::path::{Path, PathBuf};

use super::policy::Policy;

const MARKERS: &[&str] = &[
    "Read-only file system",
    "Permission denied",
    "Operation not permitted",
    "Device or resource busy",
];

/// How the note starts; the blocked path follows, then ` is outside`.
const NOTE_START: &str = "The OS sandbox probably stopped this command: ";

/// The note for `output` of a command that failed, if the sandbox explains it.
pub fn note(output: &str, policy: &Policy, dir: &Path) -> Option<String> {
    let path = blocked_path(output, policy, dir)?;
    let shown = path.display();
    Some(format!(
        "{NOTE_START}{shown} is outside the places \
         commands may write (the workspace, the additional directories, sandbox.allow_write \
         and the session's TMPDIR), or is one of the read-only files RooCode protects \
         (.git/config, .git/hooks, .roocode/, .claude/, .mcp.json). If the command really \
         needs it, the user can add the directory to sandbox.allow_write in \
         ~/.roocode/config.yaml or .roocode/config.local.yaml, or you can re-run the \
         command with dangerously_disable_sandbox: true, which asks the user first."
    ))
}

/// The path [`note`] named in a result that carries it: the OS sandbox stopped the
/// command (the flight recorder says so of the call).
pub fn stopped(result: &str) -> Option<PathBuf> {
    let after = &result[result.find(NOTE_START)? + NOTE_START.len()..];
    let path = &after[..after.find(" is outside the places")?];
    Some(PathBuf::from(path))
}

fn blocked_path(output: &str, policy: &Policy, dir: &Path) -> Option<PathBuf> {
    output
        .lines()
        .filter(|line| MARKERS.iter().any(|m| line.contains(m)))
        .flat_map(candidates)
        .map(|p| if p.is_absolute() { p } else { dir.join(p) })
        .find(|p| !policy.may_write(p))
}

/// Path-looking words of an error line: `touch: cannot touch '/etc/x': Read-only file
/// system`, `bash: /etc/x: Permission denied`, `mkdir: cannot create directory ‘a/b’`.
fn candidates(line: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // Quoted first: they may hold spaces.
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let inner = &after[..end];
            if looks_like_path(inner) {
                out.push(PathBuf::from(inner));
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c: char| ":'\"‘’`,()".contains(c));
        // Absolute, or relative with a directory (`.git/config`, as git says it).
        if (word.starts_with('/') && word.len() > 1)
            || (word.starts_with('.') && word.contains('/'))
        {
            out.push(PathBuf::from(word));
        }
    }
    out
}

fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && !s.contains('\n')
        && (s.starts_with('/') || s.contains('/') || s.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SandboxNetwork;
    use crate::sandbox::policy::{Access, Mount};

    fn policy(ws: &Path) -> Policy {
        Policy {
            mounts: vec![Mount {
                path: ws.to_path_buf(),
                access: Access::Writable,
                is_dir: true,
            }],
            network: SandboxNetwork::Allow,
        }
    }

    #[test]
    fn the_note_names_its_path_for_the_recorder() {
        let ws = tempfile::tempdir().unwrap();
        let out = "touch: cannot touch '/etc/roo x': Read-only file system\n";
        let note = note(out, &policy(ws.path()), ws.path()).unwrap();
        assert_eq!(
            stopped(&format!("exit 1\n{note}")),
            Some(PathBuf::from("/etc/roo x"))
        );
        assert_eq!(stopped("exit 1: Read-only file system"), None);
    }

    #[test]
    fn names_the_blocked_path() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path().canonicalize().unwrap();
        let p = policy(&ws);
        let out = "touch: cannot touch '/etc/roo x': Read-only file system\n";
        let text = note(out, &p, &ws).unwrap();
        assert!(text.contains("/etc/roo x is outside"), "{text}");
        assert!(text.contains("dangerously_disable_sandbox"));
        let out = "bash: line 1: /usr/lib/zz: Read-only file system";
        assert!(note_for(out, &p, &ws).contains("/usr/lib/zz"));
        let out = "mkdir: cannot create directory ‘/opt/q’: Permission denied";
        assert!(note_for(out, &p, &ws).contains("/opt/q"));
        // Relative to the command's directory, inside the workspace: not the sandbox.
        assert_eq!(
            note("rm: cannot remove 'a/b': Permission denied", &p, &ws),
            None
        );
        // Inside the workspace, or no marker: no note.
        let inside = format!(
            "touch: cannot touch '{}/f': Permission denied",
            ws.display()
        );
        assert_eq!(note(&inside, &p, &ws), None);
        assert_eq!(
            note("cat: /etc/x: No such file or directory", &p, &ws),
            None
        );
    }

    #[test]
    fn names_a_read_only_island_that_git_could_not_replace() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path().canonicalize().unwrap();
        let mut p = policy(&ws);
        p.mounts.push(Mount {
            path: ws.join(".git/config"),
            access: Access::ReadOnly,
            is_dir: false,
        });
        let out = "error: could not write config file .git/config: Device or resource busy";
        assert!(note_for(out, &p, &ws).contains(".git/config is outside"));
    }

    fn note_for(out: &str, p: &Policy, ws: &Path) -> String {
        note(out, p, ws).unwrap_or_default()
    }
}
