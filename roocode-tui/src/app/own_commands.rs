//! The TUI's own slash commands (`/rewind`, `/export`) in the completion list. The
//! daemon lists them too, as local commands whose answer only says how (for the CLI);
//! an older daemon does not, so the TUI adds each it runs itself, and marks any other
//! command of that name (a prompt command, a skill) shadowed, since the TUI's wins.

use roocode_protocol::session::CommandInfo;

/// `commands` with `own` among the local ones (after them, before skills and the
/// rest), unless the daemon lists a local command of that name itself.
pub(crate) fn with_own(mut commands: Vec<CommandInfo>, own: CommandInfo) -> Vec<CommandInfo> {
    if commands
        .iter()
        .any(|c| c.name == own.name && c.kind == "local")
    {
        return commands;
    }
    for c in commands.iter_mut().filter(|c| c.name == own.name) {
        c.shadowed_by
            .get_or_insert_with(|| format!("the TUI's /{}", own.name));
    }
    let at = commands
        .iter()
        .position(|c| c.kind != "local")
        .unwrap_or(commands.len());
    commands.insert(at, own);
    commands
}
