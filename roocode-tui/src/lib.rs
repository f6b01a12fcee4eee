//! `roocode-tui` as a library: the state and widgets of the terminal UI, kept free of
//! I/O so they can be tested on ratatui's `TestBackend` and benchmarked. The binary
//! (`main.rs`) connects them to the daemon and the terminal.
