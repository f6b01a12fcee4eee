//! Hard links and the path sandbox: a hard link is another name for the same file, and
//! nothing tells where the other names are. `ln ~/.bashrc project/notes` makes a file
//! inside the project whose content is the user's start-up file; its real path is
//! inside, so the containment check lets it through.
//!
//! What RooCode does about it (the gate calls [`ask_for_hard_link`] after layer 2):
//!
//! - **writing** (Write, Edit) a regular file with more than one link asks in every
//!   mode, `bypassPermissions` included (a deny in `dontAsk`); no allow rule skips it,
//!   since the rule names this name, not the others;
//! - **reading** it asks in every mode too, `bypassPermissions` included (the path
//!   sandbox is not overridable by a mode, and this is a way around it), unless an
//!   allow rule names the file: trees of hard links exist (pnpm's `node_modules`,
//!   `cp -al` backups) and `Read(node_modules/**)` opens them without asking;
//! - Grep leaves such files out of a directory search with a note (a file named as
//!   Grep's path went through the gate like a Read); Glob only lists names.
//!
//! Directories always have several links and are not concerned.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::permission::modes::{self, Mode};
use crate::permission::{Decided, DecidedBy};

/// The number of links of the regular file at `real`, if it has more than one.
pub fn extra_links(real: &Path) -> Option<u64> {
    let meta = std::fs::metadata(real).ok()?;
    (meta.is_file() && meta.nlink() > 1).then(|| meta.nlink())
}

/// True if the opened file's metadata says it has other names.
pub fn is_hard_linked(meta: &std::fs::Metadata) -> bool {
    meta.is_file() && meta.nlink() > 1
}

/// The gate's answer for a file tool on `real` (`shown` as the call names it), when its
/// hard links decide it; `None` to go on with rules and the mode.
pub fn ask_for_hard_link(
    mode: Mode,
    tool: &str,
    shown: &Path,
    real: &Path,
    write: bool,
    allowed_by_rule: bool,
) -> Option<Decided> {
    let links = extra_links(real)?;
    if !write && allowed_by_rule {
        return None;
    }
    let why = format!(
        "it has {links} hard links: the same file has other names, possibly outside the \
         project, which RooCode cannot see"
    );
    let doing = if write { "write" } else { "read" };
    let decision = modes::ask(
        mode,
        format!("{tool} wants to {doing} {} ({why})", shown.display()),
    );
    Some(Decided::new(
        decision,
        DecidedBy::HardLink {
            path: shown.to_path_buf(),
            links,
            write,
        },
    ))
}

#[cfg(test)]
mod tests {
    use crate::permission::test_support::{Facts, Judge, Project};
    use crate::permission::{Decision, GateSettings, Mode, PermissionGate, Rules};

    fn short(decision: &Decision) -> &'static str {
        match decision {
            Decision::Allow => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        }
    }

    fn gate(mode: Mode, allow: &[&str], deny: &[&str]) -> PermissionGate {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (rules, errors) = Rules::parse(&owned(allow), &[], &owned(deny));
        assert!(errors.is_empty());
        PermissionGate::new(GateSettings {
            rules,
            ..GateSettings::new(mode)
        })
    }

    /// `x` inside the project is a second name of `<tmp>/outside/secret`; `plain` is not.
    fn project() -> Project {
        let project = Project::new();
        let outside = project.root.parent().unwrap().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "s\n").unwrap();
        std::fs::hard_link(outside.join("secret"), project.root.join("x")).unwrap();
        project.write("plain", "p\n");
        project
    }

    /// (read x, write x, read plain, write plain) in each mode.
    #[test]
    fn hard_linked_files_ask_whatever_the_mode() {
        let project = project();
        let table = [
            (Mode::Default, ["ask", "ask", "allow", "ask"]),
            (Mode::AcceptEdits, ["ask", "ask", "allow", "allow"]),
            (Mode::Plan, ["ask", "ask", "allow", "ask"]),
            (Mode::BypassPermissions, ["ask", "ask", "allow", "allow"]),
            (Mode::DontAsk, ["deny", "deny", "allow", "deny"]),
        ];
        for (mode, expected) in table {
            let gate = gate(mode, &[], &[]);
            let decide = |write: bool, name: &str| {
                let decision = if write {
                    let tool = Facts::writing("Edit", &project.path(name));
                    gate.judge(&tool, &project.scope)
                } else {
                    gate.judge(&Facts::read(name, &project.scope), &project.scope)
                };
                short(&decision)
            };
            let got = [
                decide(false, "x"),
                decide(true, "x"),
                decide(false, "plain"),
                decide(true, "plain"),
            ];
            assert_eq!(got, expected, "{mode:?}");
        }
    }

    #[test]
    fn the_reason_says_why_and_rules_only_open_reads() {
        let project = project();
        let Decision::Ask { reason } =
            gate(Mode::Default, &[], &[]).judge(&Facts::read("x", &project.scope), &project.scope)
        else {
            panic!("not an ask");
        };
        assert!(reason.contains("2 hard links"), "{reason}");
        assert!(reason.contains("outside the project"), "{reason}");
        let allowing = gate(Mode::Default, &["Read(x)", "Edit(x)"], &[]);
        let read = allowing.judge(&Facts::read("x", &project.scope), &project.scope);
        assert_eq!(short(&read), "allow");
        let edit = Facts::writing("Edit", &project.path("x"));
        let write = allowing.judge(&edit, &project.scope);
        assert_eq!(short(&write), "ask");
        let denying = gate(Mode::BypassPermissions, &[], &["Edit(x)"]);
        let Decision::Deny { reason } = denying.judge(&edit, &project.scope) else {
            panic!("not a deny");
        };
        assert!(reason.contains("denied by rule"), "{reason}");
    }

    #[test]
    fn directories_and_missing_files_are_not_concerned() {
        let project = project();
        std::fs::create_dir(project.root.join("d")).unwrap();
        assert_eq!(super::extra_links(&project.root.join("d")), None);
        assert_eq!(super::extra_links(&project.root.join("none")), None);
        assert_eq!(super::extra_links(&project.root.join("plain")), None);
        assert_eq!(super::extra_links(&project.root.join("x")), Some(2));
    }
}
