//! `roocode-tui`: the terminal UI client of the RooCode daemon. Not built yet: its
//! issue follows the backbone. Until then it says so and points at `roocode-cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "roocode-tui is not available yet: use `roocode-cli send`, `roocode-cli attach <id>` and `roocode-cli sessions` (see README.md)"
    );
    ExitCode::FAILURE
}
