//! `roocode-cli mcp enable|disable NAME [--scope S]` (default scope local). When a file
//! of the scope has the server's entry, that entry is switched (`enabled: false`, or its
//! `enabled` removed; a switch-only `enabled: false` entry is removed). Otherwise a
//! switch-only entry (`NAME: {enabled: …}`) in the scope's file switches the server an
//! earlier scope defines: the daemon merges user < project < local, so only a later
//! scope can switch a server, and `.mcp.json` gets none (it is shared, and Claude Code
//! would read one as a server without a command).

use super::entry;
use super::files::{Files, Loaded};
use super::{Scope, check_name};
use crate::output::{err_line, out_line};

/// Runs `enable` (`enable` true) or `disable`; returns the exit status.
pub fn run(name: &str, scope: Scope, enable: bool) -> anyhow::Result<i32> {
    check_name(name)?;
    let (verb, command) = if enable {
        ("Enabled", "enable")
    } else {
        ("Disabled", "disable")
    };
    let files = Files::locate()?;
    let all = files.load_all()?;
    // The scope's file with the entry the daemon uses last.
    let held = all
        .iter()
        .rev()
        .filter(|l| l.file.scope == scope)
        .find_map(|l| Some((l, *l.entries.get(name)?)));
    if let Some((loaded, entry)) = held {
        let file = &loaded.file;
        let here = format!("{} (scope {})", file.path.display(), scope.as_str());
        if (entry.enabled != Some(false)) == enable {
            out_line(&format!(
                "MCP server {name} is already {} in {here}: nothing changed",
                if enable { "enabled" } else { "disabled" }
            ));
            return note_outcome(&files, name, enable);
        }
        let new = if enable && entry.switch_only {
            file.remove(loaded.text(), name)?
        } else {
            file.set_enabled(loaded.text(), name, enable)?
        };
        file.write(&new)?;
        out_line(&format!("{verb} MCP server {name} in {here}"));
        return note_outcome(&files, name, enable);
    }
    let definition = all
        .iter()
        .rev()
        .find(|l| l.entries.get(name).is_some_and(|h| !h.switch_only));
    let Some(definition) = definition else {
        let looked: Vec<_> = files.all.iter().collect();
        return Err(anyhow::anyhow!(
            "no MCP server named `{name}` in {}",
            Files::listed(&looked)
        ));
    };
    let defined = &definition.file;
    let (there, defined_scope) = (defined.path.display(), defined.scope.as_str());
    if defined.scope.rank() > scope.rank() {
        return Err(anyhow::anyhow!(
            "`{name}` is defined in {there} (scope {defined_scope}), which wins over scope {}: run `roocode-cli mcp {command} {name} --scope {defined_scope}`",
            scope.as_str(),
        ));
    }
    if scope == Scope::Project {
        return Err(anyhow::anyhow!(
            "`{name}` is defined in {there} (scope {defined_scope}), and the project's .mcp.json (shared, and read by Claude Code too) only switches its own servers: run `roocode-cli mcp {command} {name}` to switch it for yourself (scope local)"
        ));
    }
    let before = all.iter().filter(|l| l.file.scope.rank() < scope.rank());
    if effective(before, name).is_some_and(|(on, _)| on == enable) {
        out_line(&format!(
            "MCP server {name} is already {} in {there} (scope {defined_scope}): nothing changed",
            if enable { "enabled" } else { "disabled" }
        ));
        return note_outcome(&files, name, enable);
    }
    let target = files.target(scope);
    let loaded = target.load()?;
    let new = target.add(loaded.text(), name, &entry::switch(enable))?;
    target.write(&new)?;
    out_line(&format!(
        "{verb} MCP server {name} in {} (scope {}; it is defined in {there}, scope {defined_scope})",
        target.path.display(),
        scope.as_str()
    ));
    note_outcome(&files, name, enable)
}

/// Whether `name` ends up enabled from `files` (in merge order), and the file that
/// decides it; `None` when none defines it.
fn effective<'a>(
    files: impl Iterator<Item = &'a Loaded>,
    name: &str,
) -> Option<(bool, &'a Loaded)> {
    let mut state = None;
    for loaded in files {
        let Some(held) = loaded.entries.get(name) else {
            continue;
        };
        // A switch applies to a server an earlier file defines.
        if !held.switch_only || state.is_some() {
            state = Some((held.enabled != Some(false), loaded));
        }
    }
    state
}

/// Says so when, after the change, another file still decides the other way.
fn note_outcome(files: &Files, name: &str, enable: bool) -> anyhow::Result<i32> {
    let Ok(all) = files.load_all() else {
        return Ok(0);
    };
    if let Some((on, decider)) = effective(all.iter(), name)
        && on != enable
    {
        let scope = decider.file.scope.as_str();
        err_line(&format!(
            "note: `{name}` stays {}: {} (scope {scope}) switches it {}; run `roocode-cli mcp {} {name} --scope {scope}`",
            if on { "enabled" } else { "disabled" },
            decider.file.path.display(),
            if on { "on" } else { "off" },
            if enable { "enable" } else { "disable" },
        ));
    }
    Ok(0)
}
