//! Network targets (DESIGN §8, issue 9 item 3): what a URL's host *is*, so that every
//! spelling of one address meets the same rules, and which addresses are not the public
//! internet.
//!
//! - [`Host::parse`] canonicalises a host as a browser does: lower case, no trailing
//!   dot, brackets off IPv6, IPv4 in any of the WHATWG forms (`2130706433`,
//!   `0x7f000001`, `0177.0.0.1`, `127.1`), IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as the
//!   IPv4 address it carries.
//! - [`Host::covers`] is how `WebFetch(domain:…)` rules compare hosts: this machine
//!   (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`, `0.0.0.0`, `[::]`) is one host
//!   however it is written, addresses compare as addresses, names as names (a name rule
//!   also covers its subdomains; an address rule never covers "subdomains").
//! - [`classify_ip`] / [`Host::class`] sort addresses into public and the kinds that
//!   reach this machine or its networks (loopback, private, link-local, cloud metadata,
//!   reserved). Those ask in every mode unless an allow rule names the host
//!   ([`local_decision`]); WebFetch applies the same classes to the addresses it
//!   resolves and connects to (`tools/webfetch/resolve.rs`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

use super::modes::{self, Mode};
use super::rules::{RuleKind, Rules, Verdict};
use super::{Decided, DecidedBy, Decision};

/// Names of cloud metadata services (their addresses are caught by [`classify_ip`] too).
const METADATA_NAMES: [&str; 4] = [
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
];

/// A canonical host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// A DNS name, lower case, without a trailing dot.
    Name(String),
    /// An address (IPv4-mapped IPv6 is stored as the IPv4 address).
    Ip(IpAddr),
}

/// What kind of place an address (or a host known without resolving it) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressClass {
    /// The public internet.
    Public,
    /// This machine: 127.0.0.0/8, ::1, 0.0.0.0/8, ::, `localhost`.
    Loopback,
    /// A private network: RFC 1918, CGNAT 100.64.0.0/10, unique local fc00::/7,
    /// site-local fec0::/10.
    Private,
    /// Link-local: 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// A cloud metadata service: 169.254.169.254, fd00:ec2::254, 100.100.100.200,
    /// `metadata.google.internal`.
    Metadata,
    /// Multicast, broadcast, documentation, benchmarking and other reserved ranges.
    Reserved,
}

impl AddressClass {
    /// True for everything but [`AddressClass::Public`].
    pub fn is_local(self) -> bool {
        self != Self::Public
    }

    /// "a loopback address (this machine)", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Public => "a public address",
            Self::Loopback => "a loopback address (a service on this machine)",
            Self::Private => "a private-network address",
            Self::LinkLocal => "a link-local address",
            Self::Metadata => "a cloud metadata address (it can hand out credentials)",
            Self::Reserved => "a reserved address",
        }
    }
}

impl Host {
    /// Canonicalises a host as written in a URL or a rule; `None` for an empty host or
    /// one with characters no host has.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if !text.is_ascii() {
            if !text
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_'))
            {
                return None;
            }
            // An internationalised name: its ASCII (punycode) form, as a URL carries it.
            let url = reqwest::Url::parse(&format!("http://{text}/")).ok()?;
            let ascii = url.host_str().filter(|h| h.is_ascii())?.to_string();
            return Self::parse(&ascii);
        }
        let text = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
        if text.is_empty() {
            return None;
        }
        if text.contains(':') {
            let ip: Ipv6Addr = text.parse().ok()?;
            return Some(Self::Ip(unmap(ip)));
        }
        if let Some(v4) = parse_ipv4(&text) {
            return Some(Self::Ip(IpAddr::V4(v4)));
        }
        let valid = text
            .split('.')
            .all(|label| !label.is_empty() && label.chars().all(is_label_char));
        valid.then_some(Self::Name(text))
    }

    /// The host of a URL (`None` if it does not parse or has no host).
    pub fn of_url(url: &str) -> Option<Self> {
        let parsed = reqwest::Url::parse(url).ok()?;
        Self::parse(parsed.host_str()?)
    }

    /// This machine, however written.
    pub fn is_this_machine(&self) -> bool {
        match self {
            Self::Name(name) => is_localhost_name(name),
            Self::Ip(ip) => classify_ip(*ip) == AddressClass::Loopback,
        }
    }

    /// The class of a host known without resolving it: every address, `localhost` and
    /// the metadata names. `None` for other names (their addresses decide).
    pub fn class(&self) -> Option<AddressClass> {
        match self {
            Self::Ip(ip) => Some(classify_ip(*ip)),
            Self::Name(name) if is_localhost_name(name) => Some(AddressClass::Loopback),
            Self::Name(name) if METADATA_NAMES.contains(&name.as_str()) => {
                Some(AddressClass::Metadata)
            }
            Self::Name(_) => None,
        }
    }

    /// Does a rule naming `self` cover `other`? This machine matches itself in every
    /// spelling; addresses match exactly; a name matches itself and its subdomains
    /// (only its subdomains when `subdomains_only`).
    pub fn covers(&self, other: &Host, subdomains_only: bool) -> bool {
        if !subdomains_only && self.is_this_machine() && other.is_this_machine() {
            return true;
        }
        match (self, other) {
            (Self::Ip(a), Self::Ip(b)) => !subdomains_only && a == b,
            (Self::Name(rule), Self::Name(host)) => {
                (!subdomains_only && rule == host)
                    || host
                        .strip_suffix(rule.as_str())
                        .is_some_and(|head| head.ends_with('.'))
            }
            _ => false,
        }
    }
}

impl Host {
    /// The host as a `domain:` rule writes it: [`Host`]'s canonical text, IPv6 in
    /// brackets (`[::1]`).
    pub fn rule_text(&self) -> String {
        match self {
            Self::Ip(IpAddr::V6(v6)) => format!("[{v6}]"),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for Host {
    /// The canonical text: a name, dotted IPv4, compressed IPv6 without brackets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

fn is_label_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn is_localhost_name(name: &str) -> bool {
    name == "localhost" || name.ends_with(".localhost")
}

/// `::ffff:a.b.c.d` as the IPv4 address it carries; other IPv6 unchanged.
fn unmap(ip: Ipv6Addr) -> IpAddr {
    match ip.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(ip),
    }
}

/// IPv4 as the WHATWG URL parser reads it: one to four parts separated by dots, each
/// decimal, octal (leading `0`) or hex (`0x`); the last part fills the remaining bytes
/// (`127.1` is 127.0.0.1, `2130706433` is 127.0.0.1). `None` if it is not an address.
pub fn parse_ipv4(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts
        .iter()
        .map(|p| parse_ipv4_number(p))
        .collect::<Option<_>>()?;
    let (last, head) = numbers.split_last()?;
    if head.iter().any(|&n| n > 255) {
        return None;
    }
    let room = 8 * (5 - numbers.len() as u32);
    if room < 64 && *last >= 1u64 << room {
        return None;
    }
    let mut value = *last;
    for (i, &n) in head.iter().enumerate() {
        value += n << (8 * (3 - i as u32));
    }
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

fn parse_ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        return Some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) || digits.len() > 20 {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The class of an address.
pub fn classify_ip(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, _] = ip.octets();
    if ip == Ipv4Addr::new(169, 254, 169, 254) || ip == Ipv4Addr::new(100, 100, 100, 200) {
        return AddressClass::Metadata;
    }
    if a == 127 || a == 0 {
        return AddressClass::Loopback;
    }
    if a == 10 || (a == 172 && (16..32).contains(&b)) || (a == 192 && b == 168) {
        return AddressClass::Private;
    }
    if a == 100 && (64..128).contains(&b) {
        return AddressClass::Private;
    }
    if a == 169 && b == 254 {
        return AddressClass::LinkLocal;
    }
    let reserved = a >= 224 // multicast, 240/4, broadcast
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || (a == 198 && (b == 18 || b == 19)); // benchmarking
    if reserved {
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let seg = ip.segments();
    if ip == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254) {
        return AddressClass::Metadata;
    }
    if ip.is_loopback() || ip.is_unspecified() {
        return AddressClass::Loopback;
    }
    // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., hi, lo] = seg;
        return classify_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    match seg[0] {
        s if s & 0xfe00 == 0xfc00 => AddressClass::Private, // unique local fc00::/7
        s if s & 0xffc0 == 0xfec0 => AddressClass::Private, // site-local fec0::/10
        s if s & 0xffc0 == 0xfe80 => AddressClass::LinkLocal, // fe80::/10
        s if s & 0xff00 == 0xff00 => AddressClass::Reserved, // multicast
        0x2001 if seg[1] == 0x0db8 => AddressClass::Reserved, // documentation
        // ::/96 (IPv4-compatible, deprecated) and the rest of ::/8.
        0 => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

/// The rules-and-mode answer for a URL whose host is local by its spelling (an
/// address or `localhost` that is not public): an allow rule naming the host allows,
/// anything else asks in every mode — `bypassPermissions` included, `dontAsk` denies —
/// unless a deny or ask rule already spoke (`None` then, and for public hosts: the
/// caller goes on as for any call).
pub fn local_decision(
    mode: Mode,
    tool: &str,
    url: &str,
    verdict: Option<&Verdict>,
    rules: &Rules,
) -> Option<Decided> {
    if verdict.is_some_and(|v| v.kind != RuleKind::Allow) {
        return None;
    }
    let host = Host::of_url(url)?;
    let class = host.class().filter(|c| c.is_local())?;
    if let Some(naming) = rules.allow_naming_host(tool, &host) {
        return Some(Decided::new(Decision::Allow, DecidedBy::from(naming)));
    }
    let decision = modes::ask(
        mode,
        format!(
            "{tool} wants to fetch {url}: {host} is {} — asked in every mode unless an allow \
             rule names the host, such as {tool}(domain:{host})",
            class.describe()
        ),
    );
    Some(Decided::new(
        decision,
        DecidedBy::PrivateAddress {
            host: host.to_string(),
            class,
        },
    ))
}

#[cfg(test)]
mod tests;
