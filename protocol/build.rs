//! Stamps the build with an id that changes with the sources it was built from, so a
//! client and a daemon built from different sources notice it at the handshake.

use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let id = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) if !hash.is_empty() => format!("{version}+{hash}"),
        _ => format!("{version}+unknown"),
    };
    println!("cargo:rustc-env=ROOCODE_BUILD_ID={id}");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or(dir);
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={common}/{head_ref}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
