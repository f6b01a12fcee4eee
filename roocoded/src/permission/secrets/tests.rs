//! The secret-file matcher (names, templates, home places, symlinks, hard links) and
//! the gate's answer for `Read` of a secret file in every mode.

use super::*;
use crate::permission::test_support::{Facts, Judge, Project};
use crate::permission::{Decision, GateSettings, PermissionGate, Rules};

#[test]
fn secret_names_and_their_look_alikes() {
    let secret = [
        ".env",
        ".ENV",
        ".env.local",
        ".env.production",
        ".env.prod.local",
        "prod.env",
        ".envrc",
        "server.pem",
        "tls.key",
        "cert.p12",
        "cert.pfx",
        "id_rsa",
        "id_rsa_work",
        "id_ed25519",
        "id_ecdsa",
        ".npmrc",
        ".pypirc",
        ".netrc",
        ".pgpass",
        ".git-credentials",
        "credentials",
        "credentials.json",
        "credentials-prod.json",
        "client_secret_123.apps.googleusercontent.com.json",
        "terraform.tfstate",
        "terraform.tfstate.backup",
        "secrets.yml",
        "secrets.yaml",
        "secrets.json",
    ];
    for name in secret {
        assert!(
            secret_name(name).is_some(),
            "{name} should be a secret file"
        );
    }
    let harmless = [
        ".env.example",
        ".env.sample",
        ".env.template",
        ".env.local.example",
        ".env.dist",
        "environment.rs",
        "env.rs",
        "id_rsa.pub",
        "id_ed25519.pub",
        "keys.rs",
        "key.rs",
        "monkey.txt",
        "README.md",
        "credentials.rs",
        "secrets.rs",
        "Cargo.lock",
        "package.json",
        "tfstate.md",
        ".envoy",
    ];
    for name in harmless {
        assert_eq!(secret_name(name), None, "{name} is not a secret file");
    }
}

#[test]
fn rules_naming_a_file_are_told_from_tree_rules() {
    for rule in [
        "Read(.env)",
        "Read(**/.env)",
        "Read(config/*.pem)",
        "Read(~/.npmrc)",
    ] {
        assert!(rule_names_a_file(rule), "{rule}");
    }
    for rule in [
        "Read",
        "Read(**)",
        "Read(src/**)",
        "Read(src/*)",
        "Read(//)",
        "Read(src/)",
    ] {
        assert!(!rule_names_a_file(rule), "{rule}");
    }
}

#[test]
fn symlinks_and_hard_links_are_matched_by_the_real_file() {
    let p = Project::new();
    let env = p.write(".env", "TOKEN=canary\n");
    std::os::unix::fs::symlink(&env, p.path("notes.txt")).unwrap();
    std::fs::create_dir_all(p.path("docs")).unwrap();
    std::fs::hard_link(&env, p.path("docs/readme.md")).unwrap();
    let files = SecretFiles::new(None).with_project(&p.root);
    let link = p.path("notes.txt");
    let real = std::fs::canonicalize(&link).unwrap();
    assert_eq!(
        files.classify(&link, &real, None),
        Some(Why::Name {
            pattern: ".env".into()
        })
    );
    let hard = p.path("docs/readme.md");
    // Without the project, a hard link's other names are unknown.
    assert_eq!(SecretFiles::new(None).classify_path(&hard, &hard), None);
    assert_eq!(
        files.classify_path(&hard, &hard),
        Some(Why::Link { other: env })
    );
    let plain = p.write("docs/plain.md", "x");
    assert_eq!(files.classify_path(&plain, &plain), None);
}

#[test]
fn home_places_and_hard_links_into_them() {
    let p = Project::new();
    let home = p.root.parent().unwrap().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/config"), "Host x\n").unwrap();
    std::fs::write(home.join(".ssh/work"), "key\n").unwrap();
    std::fs::hard_link(home.join(".ssh/work"), p.path("innocent.txt")).unwrap();
    let files = SecretFiles::new(Some(&home));
    let real_home = std::fs::canonicalize(&home).unwrap();
    let config = real_home.join(".ssh/config");
    assert_eq!(
        files.classify(&config, &config, None),
        Some(Why::HomePlace {
            place: real_home.join(".ssh")
        })
    );
    let inside = p.path("innocent.txt");
    let meta = std::fs::metadata(&inside).unwrap();
    assert_eq!(
        files.classify(&inside, &inside, Some(&meta)),
        Some(Why::Link {
            other: real_home.join(".ssh/work")
        })
    );
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

fn short(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

#[test]
fn reading_a_secret_file_asks_in_every_mode_but_bypass() {
    let p = Project::new();
    p.write(".env", "TOKEN=canary\n");
    p.write("src/main.rs", "fn main() {}\n");
    let env = Facts::read(".env", &p.scope);
    let main = Facts::read("src/main.rs", &p.scope);
    for (mode, want) in [
        (Mode::Default, "ask"),
        (Mode::AcceptEdits, "ask"),
        (Mode::Plan, "ask"),
        (Mode::BypassPermissions, "allow"),
        (Mode::DontAsk, "deny"),
    ] {
        let g = gate(mode, &[], &[]);
        assert_eq!(short(&g.judge(&env, &p.scope)), want, "{mode:?}");
        assert_eq!(short(&g.judge(&main, &p.scope)), "allow", "{mode:?}");
    }
    let Decision::Ask { reason } = gate(Mode::Default, &[], &[]).judge(&env, &p.scope) else {
        panic!("asks")
    };
    assert!(
        reason.contains("usually holds credentials") && reason.contains("Read(.env)"),
        "{reason}"
    );
    let Decision::Deny { reason } = gate(Mode::DontAsk, &[], &[]).judge(&env, &p.scope) else {
        panic!("denies")
    };
    assert!(reason.contains("dontAsk"), "{reason}");
}

#[test]
fn only_a_rule_naming_the_file_lets_it_be_read_and_denies_still_win() {
    let p = Project::new();
    p.write(".env", "TOKEN=canary\n");
    let env = Facts::read(".env", &p.scope);
    for (allow, want) in [
        (&["Read"][..], "ask"),
        (&["Read(**)"][..], "ask"),
        (&["Read(.env)"][..], "allow"),
        (&["Read(**/.env)"][..], "allow"),
    ] {
        let g = gate(Mode::Default, allow, &[]);
        assert_eq!(short(&g.judge(&env, &p.scope)), want, "{allow:?}");
    }
    let g = gate(Mode::BypassPermissions, &[], &["Read(.env)"]);
    assert_eq!(short(&g.judge(&env, &p.scope)), "deny");
}

#[test]
fn the_note_names_a_few_and_counts_the_rest() {
    let mut left = LeftOut::default();
    assert_eq!(left.note(), None);
    left.add(".env".into());
    assert_eq!(
        left.note().unwrap(),
        "(1 file that usually holds credentials was left out of this search: .env. To look \
         inside one, Read it; RooCode asks the user first.)"
    );
    for i in 0..6 {
        left.add(format!("k{i}.pem"));
    }
    let note = left.note().unwrap();
    assert!(
        note.starts_with("(7 files that usually hold credentials were"),
        "{note}"
    );
    assert!(note.contains("k3.pem and 2 more."), "{note}");
}

#[test]
fn reading_a_link_to_a_secret_file_asks_like_the_file() {
    let p = Project::new();
    let env = p.write(".env", "TOKEN=canary\n");
    std::os::unix::fs::symlink(&env, p.path("notes.txt")).unwrap();
    std::fs::hard_link(&env, p.path("readme.txt")).unwrap();
    let g = gate(Mode::AcceptEdits, &[], &[]);
    for name in ["notes.txt", "readme.txt"] {
        let decision = g.judge(&Facts::read(name, &p.scope), &p.scope);
        let Decision::Ask { reason } = decision else {
            panic!("{name}: {decision:?}")
        };
        assert!(reason.contains(".env"), "{name}: {reason}");
    }
}
