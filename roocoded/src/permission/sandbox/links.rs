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
//! - **reading** it asks in every mode but `bypassPermissions`, unless an allow rule
//!   names the file; reading is less harmful than writing and trees of hard links exist
//!   (pnpm stores, `cp -al` backups), so bypass and rules can still open them;
//! - Grep leaves such files out of a directory search with a note (a file named as
//!   Grep's path went through the gate like a Read); Glob only lists names.
//!
//! Directories always have several links and are not concerned.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::permission::Decision;
use crate::permission::modes::{self, Mode};

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
) -> Option<Decision> {
    let links = extra_links(real)?;
    let why = format!(
        "{} has {links} hard links: the same file has other names, possibly outside the \
         project, which RooCode cannot see",
        shown.display()
    );
    if write {
        return Some(modes::ask(
            mode,
            format!("{tool} wants to write {} ({why})", shown.display()),
        ));
    }
    if mode == Mode::BypassPermissions || allowed_by_rule {
        return None;
    }
    Some(modes::ask(
        mode,
        format!("{tool} wants to read {} ({why})", shown.display()),
    ))
}
