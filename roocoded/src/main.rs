//! `roocoded`: the RooCode daemon. Usually started by a client when none answers;
//! `roocoded --foreground` keeps it in the terminal for debugging and service managers.
//! `roocoded sandbox-exec` is the Landlock helper commands run through when bubblewrap
//! cannot (`roocoded::sandbox::landlock`).

use clap::Parser;

/// The RooCode daemon: owns sessions and agent loops, serves JSON-RPC on a Unix socket.
#[derive(Parser)]
#[command(version = roocode_protocol::BUILD_ID)]
struct Args {
    /// Stay in the foreground and log to stderr.
    #[arg(long)]
    foreground: bool,
}

fn main() -> std::process::ExitCode {
    // `roocoded sandbox-exec …`: the Landlock helper the daemon runs commands through.
    let mut argv = std::env::args_os().skip(1);
    if argv.next().as_deref() == Some(roocoded::sandbox::landlock::SUBCOMMAND.as_ref()) {
        return roocoded::sandbox::landlock::exec_main(argv);
    }
    // Before anything else: a descriptor inherited from whoever started us (a pipe a
    // caller waits on for end-of-file) must not live as long as the daemon.
    roocoded::daemon::detach::close_inherited_descriptors();
    let args = Args::parse();
    match roocoded::daemon::run_blocking(roocoded::daemon::Options {
        foreground: args.foreground,
    }) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // stderr is the terminal with --foreground and the log otherwise (see
            // daemon::detach), so the error is written once, where it will be read.
            eprintln!("roocoded: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
