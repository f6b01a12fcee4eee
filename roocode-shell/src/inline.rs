//! Inline programs handed to an interpreter on the command line (`python3 -c …`,
//! `perl -e …`, `node -e …`, `ruby -e …`, `awk '…'`, `sed '…'`): RooCode does not run a
//! Python or Perl parser, so it only tells code that computes and prints from code that
//! may touch files, processes or the network. The second kind is asked, whatever it
//! looks like (`shutil.rmtree(os.path.expanduser("~"))` and a harmless `os.getcwd()`
//! alike): a one-liner whose effect cannot be judged is never run unasked.

/// Words that give code an effect beyond computing and printing: deleting, writing,
/// renaming, running programs, loading modules, sending signals, opening sockets,
/// evaluating built text. Matched as plain substrings, case-sensitively.
const EFFECTS: [&str; 48] = [
    "rmtree",
    "remove",
    "unlink",
    "rmdir",
    "rm_r",
    "rm_f",
    "rmSync",
    "rm(",
    "delete",
    "truncate",
    "rename",
    "move",
    "copy",
    "write",
    "open(",
    "open ",
    "chmod",
    "chown",
    "mkdir",
    "symlink",
    "system",
    "popen",
    "Popen",
    "subprocess",
    "exec",
    "spawn",
    "fork",
    "kill",
    "eval",
    "compile",
    "__",
    "getattr",
    "import",
    "require",
    "use ",
    "child_process",
    "fs.",
    "File",
    "Dir",
    "Path",
    "shutil",
    "os.",
    "socket",
    "http",
    "fetch",
    "`",
    "qx",
    "ctypes",
];

/// Python modules whose import gives no such effect.
const PURE_PYTHON_MODULES: [&str; 24] = [
    "sys",
    "json",
    "math",
    "re",
    "platform",
    "datetime",
    "time",
    "random",
    "string",
    "collections",
    "itertools",
    "functools",
    "decimal",
    "fractions",
    "statistics",
    "textwrap",
    "base64",
    "hashlib",
    "uuid",
    "struct",
    "pprint",
    "locale",
    "unicodedata",
    "calendar",
];

/// Why `code` run by `interpreter` may do more than compute and print; `None` when it
/// cannot. `module` is true for `python -m NAME` (a module by name, judged by name).
pub fn judge(interpreter: &str, code: &str, module: bool) -> Option<String> {
    if module {
        return None;
    }
    let code = if interpreter.starts_with("python") || interpreter.starts_with("pypy") {
        strip_pure_imports(code)
    } else {
        code.to_string()
    };
    EFFECTS
        .iter()
        .find(|word| code.contains(*word))
        .map(|word| {
            format!(
                "the inline program uses `{}`, so it may change files or run programs, and \
             RooCode cannot judge what it does",
                word.trim()
            )
        })
}

/// `code` without `import x, y` / `from x import y` statements of pure modules.
fn strip_pure_imports(code: &str) -> String {
    code.split([';', '\n'])
        .filter(|stmt| {
            let stmt = stmt.trim();
            let modules = if let Some(rest) = stmt.strip_prefix("import ") {
                rest
            } else if let Some(rest) = stmt.strip_prefix("from ") {
                rest.split_whitespace().next().unwrap_or("")
            } else {
                return true;
            };
            !modules
                .split(',')
                .map(|m| m.split_whitespace().next().unwrap_or(""))
                .all(|m| PURE_PYTHON_MODULES.contains(&m))
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// Why an awk program may do more than filter and print: `system()`, pipes to or from
/// commands, `getline` from a command, or printing into a file.
pub fn awk(program: &str) -> Option<String> {
    if program.contains("system") || program.contains("getline") || program.contains('|') {
        return Some(
            "the awk program runs commands (system, getline or a pipe), and RooCode \
             cannot judge them"
                .into(),
        );
    }
    let bytes = program.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'>' {
            let rest = program[i + 1..].trim_start_matches(['>', ' ', '\t']);
            if rest.starts_with('"') {
                return Some("the awk program writes to a file".into());
            }
        }
    }
    None
}

/// Why a sed script may run commands: the `e` command or the `e` flag of `s`
/// (GNU sed runs the pattern space or the replacement as a shell command).
pub fn sed(script: &str) -> Option<String> {
    for piece in script.split([';', '\n']) {
        let command = strip_address(piece.trim_start().trim_start_matches(['{', '}', ' ']));
        let mut chars = command.chars();
        match chars.next() {
            Some('e') if matches!(chars.next(), None | Some(' ' | '\t')) => {
                return Some("the sed script runs a shell command (`e`)".into());
            }
            Some('s') => {
                if let Some(delim) = chars.next()
                    && s_flags(chars.as_str(), delim).contains('e')
                {
                    return Some("the sed script runs its replacement as a shell command".into());
                }
            }
            _ => {}
        }
    }
    None
}

/// A sed command without its address (`1`, `$`, `/re/`, `1,5`, `/a/,/b/!`).
fn strip_address(mut s: &str) -> &str {
    loop {
        let before = s.len();
        s = s.trim_start_matches(|c: char| c.is_ascii_digit() || "$,!~+ ".contains(c));
        if let Some(rest) = s.strip_prefix('/') {
            s = rest.split_once('/').map_or("", |(_, after)| after);
        }
        if s.len() == before {
            return s;
        }
    }
}

/// The flags after `s<d>pattern<d>replacement<d>`.
fn s_flags(rest: &str, delim: char) -> String {
    let mut seen = 0;
    let mut escaped = false;
    let mut flags = String::new();
    for c in rest.chars() {
        if seen == 2 {
            if c.is_whitespace() || c == '}' {
                break;
            }
            flags.push(c);
        } else if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delim {
            seen += 1;
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_code_passes_and_effects_are_caught() {
        for code in [
            "print(1)",
            "import sys; print(sys.version)",
            "import json, math; print(math.pi)",
            "from datetime import date; print(date.today())",
        ] {
            assert_eq!(judge("python3", code, false), None, "{code}");
        }
        for code in [
            "import shutil; shutil.rmtree('/home/me')",
            "import os; os.system('rm -rf ~')",
            "__import__('shutil').rmtree('/')",
            "import sys, os; print(1)",
            "open('/home/me/.bashrc', 'w')",
        ] {
            assert!(judge("python3", code, false).is_some(), "{code}");
        }
        assert!(judge("perl", "use File::Path; rmtree($ENV{HOME})", false).is_some());
        assert!(
            judge(
                "node",
                "require('fs').rmSync(require('os').homedir())",
                false
            )
            .is_some()
        );
        assert!(judge("ruby", "FileUtils.rm_rf(Dir.home)", false).is_some());
        assert_eq!(judge("node", "console.log(1+1)", false), None);
        assert_eq!(judge("perl", "print \"hi\\n\"", false), None);
    }

    #[test]
    fn awk_and_sed() {
        assert_eq!(awk("{print $1}"), None);
        assert_eq!(awk("$3 > 1000 {print}"), None);
        assert!(awk("BEGIN{system(\"rm -rf ~\")}").is_some());
        assert!(awk("{print > \"/home/me/.bashrc\"}").is_some());
        assert_eq!(sed("s/a/b/g"), None);
        assert_eq!(sed("1d;$d"), None);
        assert_eq!(sed("s/e/E/"), None);
        assert!(sed("s/.*/rm -rf ~/e").is_some());
        assert!(sed("1e rm -rf ~").is_some());
        assert!(sed("/x/ e").is_some());
    }
}
