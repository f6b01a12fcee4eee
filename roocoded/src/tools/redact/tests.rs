//! The credential table: real-shaped fake keys of every kind are redacted, look-alikes
//! (hashes, checksums, UUIDs, base64, identifiers) are left alone. Keys are assembled
//! with `concat!` so this file does not itself look like it holds them.

use super::*;

/// (kind, fake key) — shapes copied from the providers' documented formats.
fn fake_keys() -> Vec<(&'static str, String)> {
    let b64 = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQABAoIBAQCh";
    vec![
        (
            "private-key",
            format!("-----BEGIN RSA PRIVATE KEY-----\n{b64}\n-----END RSA PRIVATE KEY-----"),
        ),
        (
            "private-key",
            format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{b64}\n-----END OPENSSH PRIVATE KEY-----"),
        ),
        (
            "private-key",
            format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{b64}\n-----END PGP PRIVATE KEY BLOCK-----"),
        ),
        (
            "private-key",
            // A service-account JSON string: escaped newlines.
            format!("-----BEGIN PRIVATE KEY-----\\n{b64}\\n-----END PRIVATE KEY-----"),
        ),
        ("aws-access-key", concat!("AKIA", "Z7XQ3MNB4VKD2LPW").into()),
        ("aws-access-key", concat!("ASIA", "Y2W6C7QJ4ZR5TB3N").into()),
        ("github-pat", concat!("ghp_", "1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ").into()),
        ("github-oauth", concat!("gho_", "16C7e42F292c6912E7710c838347Ae178B4a").into()),
        ("github-app-token", concat!("ghs_", "16C7e42F292c6912E7710c838347Ae178B4a").into()),
        ("github-app-token", concat!("ghu_", "16C7e42F292c6912E7710c838347Ae178B4a").into()),
        ("github-refresh-token", concat!("ghr_", "1B4a2e77838347a7E420ce178F2E7c6912E1").into()),
        (
            "github-fine-grained-pat",
            concat!(
                "github_pat_",
                "11ABCDEFG0123456789abc_",
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"
            )
            .into(),
        ),
        ("gitlab-pat", concat!("glpat-", "xK3m9Qz7Lp2Wn8Rt5Yv1").into()),
        ("gitlab-token", concat!("glrt-", "2CR8_eVxiioB1QmzPZwa").into()),
        (
            "slack-token",
            concat!("xoxb-", "2634517589-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx").into(),
        ),
        (
            "slack-webhook",
            concat!(
                "https://hooks.slack.com/services/",
                "T01ABCD2EFG/B01ABCD2EFG/abcdefghijklmnopqrstuvwx"
            )
            .into(),
        ),
        ("stripe-key", concat!("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc").into()),
        ("stripe-key", concat!("rk_live_", "51H8e2bC3d4E5f6G7h8I9j0").into()),
        ("google-api-key", concat!("AIza", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY").into()),
        ("google-oauth-secret", concat!("GOCSPX-", "1mVwFTjGIXgs2BC2uHzksQi0HAKx").into()),
        (
            "anthropic-key",
            concat!(
                "sk-ant-api03-",
                "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWx-AA"
            )
            .into(),
        ),
        (
            "openai-key",
            concat!("sk-proj-", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zA").into(),
        ),
        (
            "openai-key",
            concat!("sk-", "AbCdEfGhIjKlMnOpQrSt", "T3BlbkFJ", "AbCdEfGhIjKlMnOpQrSt").into(),
        ),
        ("api-key", concat!("sk-", "0123456789abcdef0123456789abcdef").into()),
        (
            "openrouter-key",
            concat!(
                "sk-or-v1-",
                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            )
            .into(),
        ),
        ("npm-token", concat!("npm_", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789").into()),
        (
            "pypi-token",
            concat!(
                "pypi-AgEIcHlwaS5vcmc",
                "CJDk5ZTdhMmJhLTI3YzUtNDVkNC04ODgxLTY5NzYzN2JjMmVhNwACKlszLCJmYj"
            )
            .into(),
        ),
        (
            "sendgrid-key",
            concat!(
                "SG.",
                "ngeVfQFYQlKU0ufo8x5d1A",
                ".TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
            )
            .into(),
        ),
        ("twilio-key", concat!("SK", "0123456789abcdef0123456789ABCDEF").into()),
        (
            "digitalocean-token",
            concat!(
                "dop_v1_",
                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            )
            .into(),
        ),
        ("huggingface-token", concat!("hf_", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh").into()),
        ("shopify-token", concat!("shpat_", "0123456789abcdef0123456789abcdef").into()),
        ("databricks-token", concat!("dapi", "0123456789abcdef0123456789abcdef").into()),
        (
            "groq-key",
            concat!("gsk_", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp").into(),
        ),
        ("dockerhub-pat", concat!("dckr_pat_", "AbCdEfGhIjKlMnOpQrStUvWx-_1").into()),
        (
            "jwt",
            concat!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.",
                "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            )
            .into(),
        ),
    ]
}

#[test]
fn every_rule_compiles() {
    assert!(COMPILED.is_some());
}

#[test]
fn every_fake_key_is_redacted_alone_and_in_context() {
    for (kind, key) in fake_keys() {
        let r = redact(&key);
        assert_eq!(r.text, format!("[redacted: {kind}]"), "{key}");
        assert_eq!(r.found.get(kind), Some(&1), "{key}");
        let line = format!("export TOKEN=\"{key}\" # set by ci\n");
        let r = redact(&line);
        assert_eq!(
            r.text,
            format!("export TOKEN=\"[redacted: {kind}]\" # set by ci\n"),
            "{key}"
        );
    }
}

#[test]
fn every_kind_of_the_table_is_exercised() {
    let kinds: std::collections::BTreeSet<&str> = fake_keys().iter().map(|(k, _)| *k).collect();
    // Rules without a fake key here are tested by name below.
    let rest = [
        "aws-secret-key",
        "azure-storage-key",
        "slack-app-token",
        "stripe-webhook-secret",
        "google-oauth-token",
        "atlassian-token",
        "xai-key",
        "age-secret-key",
    ];
    for rule in RULES {
        assert!(
            kinds.contains(rule.kind) || rest.contains(&rule.kind),
            "no fake key for {}",
            rule.kind
        );
    }
}

#[test]
fn keyed_assignments_keep_the_name_and_hide_the_value() {
    let secret = concat!("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY");
    let text = format!("aws_secret_access_key = {secret}\n");
    assert_eq!(
        redact(&text).text,
        "aws_secret_access_key = [redacted: aws-secret-key]\n"
    );
    let text = format!("AWS_SECRET_ACCESS_KEY: \"{secret}\"");
    assert_eq!(
        redact(&text).text,
        "AWS_SECRET_ACCESS_KEY: \"[redacted: aws-secret-key]\""
    );
    let account = format!(
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={}==;EndpointSuffix=core",
        "A".repeat(86)
    );
    assert_eq!(
        redact(&account).text,
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[redacted: azure-storage-key];EndpointSuffix=core"
    );
}

#[test]
fn look_alikes_are_never_touched() {
    let look_alikes = [
        // git SHAs, SHA-256, Cargo.lock checksums
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"",
        // npm integrity
        "\"integrity\": \"sha512-VGtTPSvrUGwAHkgVRDeRPTezy1cv6Ad1wyTgSWtbXW1bWmdhXoRkL6ZjaLiHlSfIp8mPMvXbP+6JLGrRKY7O0g==\"",
        // UUIDs, v7 session ids
        "session 0192f0c1-7a2b-7c3d-8e4f-0123456789ab",
        "550e8400-e29b-41d4-a716-446655440000",
        // base64 test data and a public key
        "data: SGVsbG8sIFdvcmxkISBUaGlzIGlzIGEgYmFzZTY0IGJsb2IgdXNlZCBpbiB0ZXN0cy4gSXQgaXMgbm90IGEga2V5Lg==",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQL\n-----END CERTIFICATE-----",
        // code that names the header without holding a key
        "const HEADER: &str = \"-----BEGIN PRIVATE KEY-----\";",
        "if line.starts_with(\"-----BEGIN RSA PRIVATE KEY-----\") { return Kind::Rsa; }",
        // identifiers that start like prefixes
        "from huggingface_hub import hf_hub_download",
        "npm_config_cache=/tmp/npm",
        "ghp_short and gho_ and github_pat_",
        "sk-button sk-container task-0123456789abcdef0123456789abcdef",
        "AKIA is a prefix; AKIAshort; XAKIAZ7XQ3MNB4VKD2LPWX",
        "xoxb-your-token-here",
        "SKIP_TESTS=1 SKU1234",
        "sk_test_short",
        "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
        "[redacted: not-a-real-marker-added-by-anyone-here]",
        "https://hooks.slack.com/services/T000/B000/short",
    ];
    for text in look_alikes {
        let r = redact(text);
        assert!(r.is_clean(), "{text:?} was changed to {:?}", r.text);
        assert_eq!(r.text, text);
    }
}

#[test]
fn a_cut_private_key_is_redacted_to_the_end_of_its_material() {
    let key = fake_keys().remove(0).1;
    let cut = &key[..key.len() - 40];
    let text = format!("before\n{cut}");
    assert_eq!(redact(&text).text, "before\n[redacted: private-key]");
}

#[test]
fn the_note_counts_and_names_the_kinds() {
    let text = format!(
        "{} {} {}",
        concat!("AKIA", "Z7XQ3MNB4VKD2LPW"),
        concat!("AKIA", "Z7XQ3MNB4VKD2LPQ"),
        concat!("ghp_", "1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ")
    );
    let out = redact_output(&text).unwrap();
    assert!(out.starts_with(
        "[redacted: aws-access-key] [redacted: aws-access-key] [redacted: github-pat]\n\n"
    ));
    assert!(out.contains("replaced 3 credentials"), "{out}");
    assert!(out.contains("aws-access-key ×2, github-pat"), "{out}");
    assert_eq!(redact_output("nothing here"), None);
}

#[test]
fn markers_are_refused_unless_the_file_already_holds_them() {
    let marker = "[redacted: aws-access-key]";
    let err = check_markers(&format!("KEY={marker}\n"), Some("KEY=AKIA…\n")).unwrap_err();
    assert!(
        err.contains(marker) && err.contains("ask the user"),
        "{err}"
    );
    assert!(check_markers(&format!("KEY={marker}"), None).is_err());
    assert!(check_markers("KEY=value", Some("KEY=old")).is_ok());
    // A file that documents the marker (like this one) can still be edited.
    let doc = format!("assert_eq!(x, \"{marker}\");");
    assert!(check_markers(&doc, Some(&doc)).is_ok());
}

#[test]
fn live_output_lets_out_whole_lines_only() {
    let key = concat!("AKIA", "Z7XQ3MNB4VKD2LPW");
    let mut live = LiveRedactor::default();
    assert_eq!(live.push("line one\nKEY="), Some("line one\n".to_string()));
    assert_eq!(live.push(&key[..6]), None);
    assert_eq!(
        live.push(&format!("{}\nnext", &key[6..])),
        Some("KEY=[redacted: aws-access-key]\n".to_string())
    );
    assert_eq!(live.finish(), Some("next".to_string()));
    assert_eq!(live.finish(), None);
}

#[test]
fn live_output_holds_an_open_private_key_block() {
    let key = fake_keys().remove(0).1;
    let (head, tail) = key.split_at(60);
    let mut live = LiveRedactor::default();
    assert_eq!(
        live.push(&format!("start\n{head}\n")),
        Some("start\n".to_string())
    );
    assert_eq!(
        live.push(&format!("{tail}\nafter\n")),
        Some("[redacted: private-key]\nafter\n".to_string())
    );
}

#[test]
fn live_output_does_not_hold_forever() {
    let mut live = LiveRedactor::default();
    let long = "x".repeat(LIVE_HOLD + 1);
    assert_eq!(live.push(&long).map(|t| t.len()), Some(LIVE_HOLD + 1));
}

/// Redaction runs on every result, spilled ones included (megabytes): it must stay
/// linear and use the fast engines on non-ASCII text too (a Unicode `\b` would not).
#[test]
fn large_outputs_are_redacted_quickly() {
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&format!(
            "ligne {i} é à ü 3f786850e387550fdab836ed7e6dc881de23001b\n"
        ));
        if i % 100 == 0 {
            text.push_str(concat!("key=", "AKIA", "Z7XQ3MNB4VKD2LPW", "\n"));
        }
    }
    let started = std::time::Instant::now();
    let r = redact(&text);
    let elapsed = started.elapsed();
    assert_eq!(r.found.get("aws-access-key"), Some(&400));
    // About 0.3 s in a debug build on this machine; minutes with Unicode `\b`.
    assert!(
        elapsed < std::time::Duration::from_secs(10),
        "{elapsed:?} for {} bytes",
        text.len()
    );
}
