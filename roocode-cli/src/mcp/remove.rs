//! `roocode-cli mcp remove NAME [--scope S]`: removes a server's entry. Without a
//! scope, from the one scope whose files define it (asking for `--scope` when several
//! do); with one, from that scope's files. Switch-only entries left without a server
//! to switch (the daemon would take them for a server with no command) go too.

use std::collections::BTreeSet;

use super::files::{ConfigFile, Files, Loaded};
use super::{Scope, check_name};
use crate::failure::UsageError;
use crate::output::out_line;

/// Runs `remove`; returns the exit status.
pub fn run(name: &str, scope: Option<Scope>) -> anyhow::Result<i32> {
    check_name(name)?;
    let files = Files::locate()?;
    let holds = |l: &Loaded| l.entries.contains_key(name);
    let defines = |l: &Loaded| l.entries.get(name).is_some_and(|h| !h.switch_only);
    let (all, chosen): (Vec<Loaded>, Vec<usize>) = match scope {
        Some(scope) => {
            // The scope's files must be readable; the others only matter for hints.
            let mut all = Vec::new();
            for file in &files.all {
                match file.load() {
                    Ok(loaded) => all.push(loaded),
                    Err(e) if file.scope == scope => return Err(e),
                    Err(_) => {}
                }
            }
            let chosen = indexes(&all, |l| l.file.scope == scope && holds(l));
            if chosen.is_empty() {
                let looked: Vec<&ConfigFile> =
                    files.all.iter().filter(|f| f.scope == scope).collect();
                let mut message = format!(
                    "no MCP server named `{name}` in {} (scope {})",
                    Files::listed(&looked),
                    scope.as_str()
                );
                if let Some(other) = all.iter().find(|l| defines(l)) {
                    message.push_str(&format!(
                        "; {} (scope {}) defines it: use --scope {}",
                        other.file.path.display(),
                        other.file.scope.as_str(),
                        other.file.scope.as_str()
                    ));
                }
                return Err(anyhow::anyhow!(message));
            }
            (all, chosen)
        }
        None => {
            let all = files.load_all()?;
            let mut chosen = indexes(&all, |l| defines(l));
            if chosen.is_empty() {
                chosen = indexes(&all, |l| holds(l));
            }
            if chosen.is_empty() {
                let looked: Vec<&ConfigFile> = files.all.iter().collect();
                return Err(anyhow::anyhow!(
                    "no MCP server named `{name}` in {}",
                    Files::listed(&looked)
                ));
            }
            let scopes: BTreeSet<_> = chosen.iter().map(|&i| all[i].file.scope.rank()).collect();
            if scopes.len() > 1 {
                let places: Vec<String> = chosen
                    .iter()
                    .map(|&i| {
                        let f = &all[i].file;
                        format!("{} ({})", f.scope.as_str(), f.path.display())
                    })
                    .collect();
                return Err(UsageError(format!(
                    "`{name}` is defined in several scopes: {}; say which to remove it from with --scope",
                    places.join(", ")
                ))
                .into());
            }
            (all, chosen)
        }
    };
    for &i in &chosen {
        remove_from(&all[i], name, "MCP server")?;
    }
    // Switches of a server that is no longer defined anywhere.
    let left = |i: usize| !chosen.contains(&i);
    let still_defined = (0..all.len()).any(|i| left(i) && defines(&all[i]));
    if !still_defined {
        for i in (0..all.len()).filter(|&i| left(i) && holds(&all[i])) {
            remove_from(&all[i], name, "the left-over switch of")?;
        }
    }
    Ok(0)
}

fn indexes(all: &[Loaded], keep: impl Fn(&Loaded) -> bool) -> Vec<usize> {
    (0..all.len()).filter(|&i| keep(&all[i])).collect()
}

fn remove_from(loaded: &Loaded, name: &str, what: &str) -> anyhow::Result<()> {
    let file = &loaded.file;
    let new = file.remove(loaded.text(), name)?;
    file.write(&new)?;
    out_line(&format!(
        "Removed {what} {name} from {} (scope {})",
        file.path.display(),
        file.scope.as_str()
    ));
    Ok(())
}
