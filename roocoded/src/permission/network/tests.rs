//! Table tests of host canonicalisation, address classes, `domain:` matching across
//! spellings, and the gate's answer for local hosts in every mode.

use std::net::IpAddr;

use super::{AddressClass, Host, classify_ip, parse_ipv4};
use crate::permission::test_support::{Facts, Judge, Project};
use crate::permission::{Decision, GateSettings, Mode, PermissionGate, Rules};

/// Every way of writing this machine that a URL can carry.
const LOOPBACK_URLS: &[&str] = &[
    "http://127.0.0.1:8080/?k=x",
    "http://localhost/",
    "http://LOCALHOST./",
    "http://app.localhost/",
    "http://127.0.0.2/",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://[::1]:3000/",
    "http://[::ffff:127.0.0.1]/",
    "http://[0:0:0:0:0:ffff:7f00:1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
];

#[test]
fn every_spelling_of_this_machine_is_one_host() {
    for url in LOOPBACK_URLS {
        let host = Host::of_url(url).unwrap_or_else(|| panic!("{url}"));
        assert!(host.is_this_machine(), "{url} → {host:?}");
        assert_eq!(host.class(), Some(AddressClass::Loopback), "{url}");
        for rule in [
            "localhost",
            "127.0.0.1",
            "[::1]",
            "::1",
            "2130706433",
            "127.1",
        ] {
            assert!(
                Host::parse(rule).unwrap().covers(&host, false),
                "rule {rule} should cover {url}"
            );
        }
    }
}

#[test]
fn hosts_canonicalise_like_a_browser() {
    let cases: &[(&str, &str)] = &[
        ("Example.COM.", "example.com"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"),
        ("0xA9.0xFE.0xA9.0xFE", "169.254.169.254"),
        ("[::ffff:10.0.0.1]", "10.0.0.1"),
        ("[FD00:EC2::254]", "fd00:ec2::254"),
        ("::1", "::1"),
        ("1.2.3.4.example", "1.2.3.4.example"),
        ("Bücher.example", "xn--bcher-kva.example"),
    ];
    for (text, canonical) in cases {
        assert_eq!(
            Host::parse(text).map(|h| h.to_string()).as_deref(),
            Some(*canonical),
            "{text}"
        );
    }
    for bad in [
        "",
        ".",
        "a..b",
        "exa mple.com",
        "[::1",
        "1.2.3.4.5:80",
        "a/b",
        "bü/cher",
        "bü@cher",
    ] {
        assert_eq!(Host::parse(bad), None, "{bad:?}");
    }
    // Too large for the bytes left: not an address (and not a name a URL could carry).
    assert_eq!(parse_ipv4("256.0.0.1"), None);
    assert_eq!(parse_ipv4("1.2.3.256"), None);
    assert_eq!(parse_ipv4("4294967296"), None);
    assert_eq!(
        parse_ipv4("4294967295").map(|a| a.to_string()).as_deref(),
        Some("255.255.255.255")
    );
    // The URL parser agrees with ours on every form we accept.
    for (text, canonical) in cases.iter().filter(|(t, _)| !t.contains(':')) {
        let url = format!("http://{text}/");
        assert_eq!(
            reqwest::Url::parse(&url)
                .unwrap()
                .host_str()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase()),
            Some(canonical.to_string()),
            "{url}"
        );
    }
}

#[test]
fn addresses_are_classified() {
    use AddressClass::*;
    let cases: &[(&str, AddressClass)] = &[
        ("127.0.0.1", Loopback),
        ("127.255.255.254", Loopback),
        ("0.0.0.0", Loopback),
        ("::1", Loopback),
        ("::", Loopback),
        ("10.0.0.1", Private),
        ("172.16.0.1", Private),
        ("172.31.255.255", Private),
        ("192.168.1.1", Private),
        ("100.64.0.1", Private),
        ("100.127.255.255", Private),
        ("fc00::1", Private),
        ("fd12:3456::1", Private),
        ("fec0::1", Private),
        ("169.254.1.1", LinkLocal),
        ("fe80::1", LinkLocal),
        ("169.254.169.254", Metadata),
        ("fd00:ec2::254", Metadata),
        ("100.100.100.200", Metadata),
        ("::ffff:169.254.169.254", Metadata),
        ("64:ff9b::a9fe:a9fe", Metadata),
        ("64:ff9b::7f00:1", Loopback),
        ("224.0.0.1", Reserved),
        ("255.255.255.255", Reserved),
        ("240.0.0.1", Reserved),
        ("192.0.2.1", Reserved),
        ("198.18.0.1", Reserved),
        ("ff02::1", Reserved),
        ("2001:db8::1", Reserved),
        ("::10.0.0.1", Reserved),
        // Public look-alikes just outside each range.
        ("172.15.255.255", Public),
        ("172.32.0.0", Public),
        ("100.63.255.255", Public),
        ("100.128.0.0", Public),
        ("169.253.255.255", Public),
        ("11.0.0.1", Public),
        ("128.0.0.1", Public),
        ("1.1.1.1", Public),
        ("93.184.216.34", Public),
        ("2606:4700::1111", Public),
        ("64:ff9b::101:101", Public),
    ];
    for (text, class) in cases {
        let ip: IpAddr = text.parse().unwrap();
        assert_eq!(classify_ip(ip), *class, "{text}");
    }
    assert_eq!(
        Host::parse("metadata.google.internal").unwrap().class(),
        Some(Metadata)
    );
    assert_eq!(Host::parse("example.com").unwrap().class(), None);
}

#[test]
fn rules_match_names_and_subdomains_but_addresses_exactly() {
    let covers = |rule: &str, host: &str, sub: bool| {
        Host::parse(rule)
            .unwrap()
            .covers(&Host::parse(host).unwrap(), sub)
    };
    assert!(covers("example.com", "example.com", false));
    assert!(covers("example.com", "docs.example.com", false));
    assert!(!covers("example.com", "badexample.com", false));
    assert!(!covers("example.com", "example.com", true));
    assert!(covers("example.com", "a.b.example.com", true));
    // An address is not a "subdomain" of its tail.
    assert!(!covers("168.1.1", "192.168.1.1", false));
    assert!(!covers("0.1", "10.0.0.1", false));
    assert!(covers("10.0.0.1", "10.1", false));
    assert!(!covers("10.0.0.1", "10.0.0.2", false));
    assert!(!covers("localhost", "10.0.0.1", false));
    assert!(!covers("127.0.0.1", "localhost.example.com", false));
}

fn gate(mode: Mode, allow: &[&str], deny: &[&str]) -> PermissionGate {
    let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (rules, errors) = Rules::parse(&owned(allow), &[], &owned(deny));
    assert!(errors.is_empty(), "{errors:?}");
    let mut settings = GateSettings::new(mode);
    settings.rules = rules;
    PermissionGate::new(settings)
}

fn check(gate: &PermissionGate, url: &str) -> Decision {
    let p = Project::new();
    gate.judge(&Facts::fetch(url), &p.scope)
}

fn is_ask(d: &Decision) -> bool {
    matches!(d, Decision::Ask { .. })
}

fn is_deny(d: &Decision) -> bool {
    matches!(d, Decision::Deny { .. })
}

#[test]
fn public_hosts_ask_per_domain_except_in_bypass_and_dont_ask() {
    let url = "https://example.com/page";
    for mode in [Mode::Default, Mode::AcceptEdits, Mode::Plan] {
        assert!(is_ask(&check(&gate(mode, &[], &[]), url)), "{mode:?}");
        assert_eq!(
            check(&gate(mode, &["WebFetch(domain:example.com)"], &[]), url),
            Decision::Allow,
            "{mode:?}"
        );
        // A rule for another domain does not cover this one.
        assert!(is_ask(&check(
            &gate(mode, &["WebFetch(domain:example.org)"], &[]),
            url
        )));
    }
    assert_eq!(
        check(&gate(Mode::BypassPermissions, &[], &[]), url),
        Decision::Allow
    );
    assert!(is_deny(&check(&gate(Mode::DontAsk, &[], &[]), url)));
    assert_eq!(
        check(
            &gate(Mode::DontAsk, &["WebFetch(domain:example.com)"], &[]),
            url
        ),
        Decision::Allow
    );
}

#[test]
fn local_hosts_ask_in_every_mode_unless_a_rule_names_them() {
    let private = [
        "http://10.0.0.5/",
        "http://192.168.0.1/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://[fd00:ec2::254]/",
        "http://[fe80::1]/",
    ];
    for url in LOOPBACK_URLS.iter().chain(&private) {
        for mode in [
            Mode::Default,
            Mode::AcceptEdits,
            Mode::Plan,
            Mode::BypassPermissions,
        ] {
            let d = check(&gate(mode, &[], &[]), url);
            assert!(is_ask(&d), "{mode:?} {url}: {d:?}");
            // A bare `WebFetch` allow or a rule for another host names no local host.
            let d = check(
                &gate(mode, &["WebFetch", "WebFetch(domain:example.com)"], &[]),
                url,
            );
            assert!(is_ask(&d), "{mode:?} {url}: {d:?}");
        }
        assert!(
            is_deny(&check(&gate(Mode::DontAsk, &[], &[]), url)),
            "{url}"
        );
    }
    for url in LOOPBACK_URLS {
        for rule in ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"] {
            for mode in [Mode::Default, Mode::BypassPermissions, Mode::DontAsk] {
                assert_eq!(
                    check(&gate(mode, &[rule], &[]), url),
                    Decision::Allow,
                    "{rule} {url}"
                );
            }
            // A deny of one spelling covers them all, whatever else allows.
            let d = check(&gate(Mode::BypassPermissions, &["WebFetch"], &[rule]), url);
            assert!(is_deny(&d), "{rule} {url}: {d:?}");
        }
    }
    let d = check(
        &gate(Mode::Default, &["WebFetch(domain:10.0.0.5)"], &[]),
        "http://10.0.0.5/",
    );
    assert_eq!(d, Decision::Allow);
    let d = check(
        &gate(Mode::Default, &["WebFetch(domain:10.0.0.5)"], &[]),
        "http://10.0.0.6/",
    );
    assert!(is_ask(&d));
    let Decision::Ask { reason } = check(
        &gate(Mode::BypassPermissions, &[], &[]),
        "http://2130706433:9/?k=s",
    ) else {
        panic!("expected an ask");
    };
    assert_eq!(
        reason,
        "WebFetch wants to fetch http://2130706433:9/?k=s: 127.0.0.1 is a loopback address (a \
         service on this machine) — asked in every mode unless an allow rule names the host, \
         such as WebFetch(domain:127.0.0.1)"
    );
}

#[test]
fn domain_rules_parse_addresses_and_refuse_garbage() {
    for ok in [
        "WebFetch(domain:[::1])",
        "WebFetch(domain:::1)",
        "WebFetch(domain:2130706433)",
        "WebFetch(domain:*.example.com)",
        "WebFetch(domain:Example.com.)",
    ] {
        let (_, errors) = Rules::parse(&[ok.to_string()], &[], &[]);
        assert!(errors.is_empty(), "{ok}: {errors:?}");
    }
    for bad in [
        "WebFetch(domain:)",
        "WebFetch(domain:a b)",
        "WebFetch(domain:*.127.0.0.1)",
        "WebFetch(domain:example.com:8080)",
        "WebFetch(example.com)",
    ] {
        let (_, errors) = Rules::parse(&[bad.to_string()], &[], &[]);
        assert_eq!(errors.len(), 1, "{bad}");
    }
}
