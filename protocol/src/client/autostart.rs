//! Auto-start: connect to the daemon, starting it when nothing answers.
//! (Filled in by the CLI work.)
