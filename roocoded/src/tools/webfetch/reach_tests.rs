//! What WebFetch reaches while it runs: names resolved by a fake resolver and checked
//! before connecting (rebinding to a local address refused, a rule naming the host
//! honoured, one resolution connected to), and redirects to other hosts — a second
//! loopback port, another spelling, a name that resolves locally — checked by the gate
//! again. Servers record every request, so "not fetched" means no request arrived.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use reqwest::Url;
use roocode_tests::recorder::Recorder;
use serde_json::json;

use super::resolve::Lookup;
use super::{Fetched, MAX_BODY_BYTES, NotFollowed, fetch};
use crate::permission::{GateSettings, Mode, PermissionGate, Rules};
use crate::tools::test_support::Project;
use crate::tools::{Approval, Human, PlanVerdict, ToolError};

/// A loopback server answering `/page` with a text page and `/hop?to=URL` with a
/// redirect to URL, recording `<path> <host header>` of every request.
async fn site() -> Recorder {
    Recorder::serving("secret").await.unwrap()
}

/// A resolver answering from `table`, counting its lookups.
fn fake_lookup(table: &[(&str, &[&str])]) -> (Lookup, Arc<AtomicUsize>) {
    let table: HashMap<String, Vec<IpAddr>> = table
        .iter()
        .map(|(name, addrs)| {
            (
                name.to_string(),
                addrs.iter().map(|a| a.parse().unwrap()).collect(),
            )
        })
        .collect();
    let count = Arc::new(AtomicUsize::new(0));
    let counter = count.clone();
    let lookup: Lookup = Arc::new(move |name: String| {
        counter.fetch_add(1, Ordering::SeqCst);
        let found = table.get(&name).cloned();
        async move {
            found.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such host"))
        }
        .boxed()
    });
    (lookup, count)
}

/// A project whose calls are checked by a gate in `mode` with these rules.
fn project(mode: Mode, allow: &[&str], deny: &[&str]) -> Project {
    let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (rules, errors) = Rules::parse(&owned(allow), &[], &owned(deny));
    assert!(errors.is_empty(), "{errors:?}");
    let mut settings = GateSettings::new(mode);
    settings.rules = rules;
    let mut p = Project::new();
    p.ctx.gate = Some(Arc::new(PermissionGate::new(settings)));
    p
}

async fn get(p: &Project, url: &str, lookup: &Lookup) -> Result<Fetched, ToolError> {
    fetch(Url::parse(url).unwrap(), MAX_BODY_BYTES, &p.ctx, lookup).await
}

fn page_text(fetched: Result<Fetched, ToolError>) -> String {
    match fetched {
        Ok(Fetched::Page(page)) => String::from_utf8(page.body).unwrap(),
        other => panic!("expected a page, got {other:?}"),
    }
}

#[tokio::test]
async fn a_name_that_resolves_to_a_local_address_is_refused_with_nobody_to_ask() {
    let site = site().await;
    let port = site.port();
    let (lookup, _) = fake_lookup(&[
        ("intranet.test", &["10.0.0.7"]),
        ("rebind.test", &["93.184.216.34", "127.0.0.1"]),
        ("meta.test", &["169.254.169.254"]),
    ]);
    // bypassPermissions and a bare allow let public names through the gate; the
    // resolver still refuses local addresses.
    let p = project(
        Mode::BypassPermissions,
        &["WebFetch", "WebFetch(domain:other.test)"],
        &[],
    );
    for (name, address, class) in [
        ("intranet.test", "10.0.0.7", "a private-network address"),
        (
            "rebind.test",
            "127.0.0.1",
            "a loopback address (a service on this machine)",
        ),
        (
            "meta.test",
            "169.254.169.254",
            "a cloud metadata address (it can hand out credentials)",
        ),
    ] {
        let err = get(&p, &format!("http://{name}:{port}/page"), &lookup)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ToolError::Failed(format!(
                "Not fetched: {name} resolves to {address}, {class}. WebFetch connects to local \
                 and private addresses only with the user's approval or when an allow rule \
                 names the host; if this is intended, the user can add \
                 \"WebFetch(domain:{name})\" to permissions.allow."
            ))
        );
    }
    assert_eq!(site.seen(), Vec::<String>::new());
}

#[tokio::test]
async fn a_rule_naming_the_host_allows_local_addresses_and_the_checked_address_is_used() {
    let site = site().await;
    let port = site.port();
    let (lookup, lookups) = fake_lookup(&[
        ("docs.test", &["127.0.0.1"]),
        ("api.docs.test", &["127.0.0.1"]),
    ]);
    let p = project(Mode::Default, &["WebFetch(domain:docs.test)"], &[]);
    let text = page_text(get(&p, &format!("http://docs.test:{port}/page"), &lookup).await);
    assert_eq!(text, "secret");
    assert_eq!(site.seen(), [format!("/page docs.test:{port}")]);
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        1,
        "one resolution, connected to"
    );
    // A subdomain rule covers the host too; a rule for another name does not.
    let text = page_text(get(&p, &format!("http://api.docs.test:{port}/page"), &lookup).await);
    assert_eq!(text, "secret");
    let p = project(Mode::Default, &["WebFetch(domain:docs.test.evil)"], &[]);
    let err = get(&p, &format!("http://docs.test:{port}/page"), &lookup).await;
    assert!(matches!(err, Err(ToolError::Failed(m)) if m.starts_with("Not fetched")));
}

#[tokio::test]
async fn a_redirect_to_another_local_port_is_followed_only_if_the_gate_allows_it() {
    let (a, b) = (site().await, site().await);
    let (lookup, _) = fake_lookup(&[]);
    let target = format!("http://2130706433:{}/page", b.port());
    let start = format!("http://127.0.0.1:{}/hop?to={target}", a.port());

    // bypassPermissions does not open local addresses: the redirect stops, naming the
    // new URL (canonical form), and the second server sees nothing.
    let p = project(Mode::BypassPermissions, &[], &[]);
    let Ok(Fetched::Redirect { to, why, .. }) = get(&p, &start, &lookup).await else {
        panic!("expected a redirect that is not followed");
    };
    assert_eq!(to.as_str(), format!("http://127.0.0.1:{}/page", b.port()));
    assert!(
        matches!(&why, NotFollowed::NeedsApproval(Some(r)) if r.contains("asked in every mode")),
        "{why:?}"
    );
    assert_eq!(b.seen(), Vec::<String>::new());

    // Through the tool, the model is told to call again with the new URL.
    let out = p.run("WebFetch", json!({"url": start})).await.unwrap();
    assert!(!out.is_error);
    assert!(
        out.content.contains(&format!(
            "To fetch it, call WebFetch again with url \"http://127.0.0.1:{}/page\".",
            b.port()
        )),
        "{}",
        out.content
    );
    assert_eq!(b.seen(), Vec::<String>::new());

    // A deny of another spelling of the same host wins over the allow.
    let p = project(
        Mode::Default,
        &["WebFetch(domain:127.0.0.1)"],
        &["WebFetch(domain:localhost)"],
    );
    let out = p.run("WebFetch", json!({"url": start})).await.unwrap();
    assert!(out.is_error);
    assert!(
        out.content
            .ends_with("which is denied: denied by rule WebFetch(domain:localhost) in your config"),
        "{}",
        out.content
    );
    assert_eq!(b.seen(), Vec::<String>::new());

    // A rule naming the host: followed.
    let p = project(Mode::Default, &["WebFetch(domain:127.0.0.1)"], &[]);
    let text = page_text(get(&p, &start, &lookup).await);
    assert_eq!(text, "secret");
    assert_eq!(b.seen(), [format!("/page 127.0.0.1:{}", b.port())]);
}

#[tokio::test]
async fn a_redirect_to_a_public_name_that_resolves_locally_is_refused_at_resolution() {
    let (a, b) = (site().await, site().await);
    let (lookup, lookups) = fake_lookup(&[("evil.test", &["127.0.0.1"])]);
    let start = format!(
        "http://127.0.0.1:{}/hop?to=http://evil.test:{}/page",
        a.port(),
        b.port()
    );
    // The gate lets the public name through (bypassPermissions); its address does not.
    let p = project(
        Mode::BypassPermissions,
        &["WebFetch(domain:127.0.0.1)"],
        &[],
    );
    let err = get(&p, &start, &lookup).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::Failed(m) if m.starts_with("Not fetched: evil.test resolves to 127.0.0.1")),
        "{err:?}"
    );
    assert_eq!(lookups.load(Ordering::SeqCst), 1);
    assert_eq!(a.seen().len(), 1);
    assert_eq!(b.seen(), Vec::<String>::new());
}

/// A human who answers every approval the same way and remembers what was asked.
#[derive(Debug)]
struct Answering {
    answer: Result<Approval, String>,
    asked: Mutex<Vec<(String, String, String)>>,
}

impl Answering {
    fn new(answer: Result<Approval, String>) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<(String, String, String)> {
        self.asked.lock().unwrap().clone()
    }
}

impl Human for Answering {
    fn ask_questions<'a>(
        &'a self,
        _questions: &'a serde_json::Value,
    ) -> BoxFuture<'a, Result<Vec<String>, String>> {
        async { Err("not in this test".to_string()) }.boxed()
    }

    fn approve_plan<'a>(&'a self, _plan: &'a str) -> BoxFuture<'a, Result<PlanVerdict, String>> {
        async { Err("not in this test".to_string()) }.boxed()
    }

    fn mode(&self) -> roocode_protocol::Mode {
        roocode_protocol::Mode::Default
    }

    fn approve<'a>(
        &'a self,
        tool: &'a str,
        _input: &'a serde_json::Value,
        summary: &'a str,
        reason: &'a str,
    ) -> BoxFuture<'a, Result<Approval, String>> {
        self.asked
            .lock()
            .unwrap()
            .push((tool.into(), summary.into(), reason.into()));
        let answer = self.answer.clone();
        async move { answer }.boxed()
    }
}

#[tokio::test]
async fn a_name_that_resolves_locally_is_put_to_the_user_and_the_approved_addresses_are_used() {
    let site = site().await;
    let port = site.port();
    let url = format!("http://wiki.corp.test:{port}/page");
    let (lookup, lookups) = fake_lookup(&[("wiki.corp.test", &["127.0.0.1"])]);

    // Approved once: fetched from the address that was shown, resolved once.
    let mut p = project(Mode::BypassPermissions, &[], &[]);
    let human = Answering::new(Ok(Approval::Once));
    p.ctx.human = Some(human.clone());
    let text = page_text(get(&p, &url, &lookup).await);
    assert_eq!(text, "secret");
    assert_eq!(lookups.load(Ordering::SeqCst), 1);
    assert_eq!(
        human.asked(),
        [(
            "WebFetch".to_string(),
            url.clone(),
            format!(
                "WebFetch wants to fetch {url}: wiki.corp.test resolves to 127.0.0.1, a \
                 loopback address (a service on this machine) — asked in every mode unless an \
                 allow rule names the host, such as WebFetch(domain:wiki.corp.test)"
            )
        )]
    );
    assert_eq!(site.seen(), [format!("/page wiki.corp.test:{port}")]);

    // Refused: nothing sent, and the model is told not to retry.
    let human = Answering::new(Ok(Approval::Denied { feedback: None }));
    p.ctx.human = Some(human.clone());
    let err = get(&p, &url, &lookup).await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(
            "Permission denied: wiki.corp.test resolves to 127.0.0.1, a loopback address (a \
             service on this machine), and the user refused fetching it. Do not retry it; \
             choose another way or ask the user."
                .into()
        )
    );
    assert_eq!(site.seen().len(), 1);

    // Nobody can answer (dontAsk): the reason is given with the rule that would allow it.
    p.ctx.human = Some(Answering::new(Err("the session is in dontAsk mode".into())));
    let err = get(&p, &url, &lookup).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::Failed(m) if m.starts_with("Not fetched: wiki.corp.test") && m.ends_with("(Nobody was asked: the session is in dontAsk mode.)")),
        "{err:?}"
    );
    assert_eq!(site.seen().len(), 1);

    // Always: the rule is written to the project's local config, and it names the host.
    let human = Answering::new(Ok(Approval::Always));
    p.ctx.human = Some(human.clone());
    let text = page_text(get(&p, &url, &lookup).await);
    assert_eq!(text, "secret");
    let local = std::fs::read_to_string(p.root.join(".roocode/config.local.yaml")).unwrap();
    assert!(
        local.contains("\"WebFetch(domain:wiki.corp.test)\""),
        "{local}"
    );
    assert_eq!(site.seen().len(), 2);
}

#[tokio::test]
async fn a_deny_rule_naming_an_address_covers_every_name_that_resolves_to_it() {
    let site = site().await;
    let port = site.port();
    let (lookup, _) = fake_lookup(&[
        ("alias.test", &["127.0.0.1"]),
        ("public.test", &["93.184.216.34"]),
    ]);
    // The name is allowed (and named, so it may be local); the address is denied.
    let p = project(
        Mode::Default,
        &[
            "WebFetch(domain:alias.test)",
            "WebFetch(domain:public.test)",
        ],
        &[
            "WebFetch(domain:localhost)",
            "WebFetch(domain:93.184.216.34)",
        ],
    );
    let err = get(&p, &format!("http://alias.test:{port}/page"), &lookup)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Failed(
            "Permission denied: alias.test resolves to 127.0.0.1, which rule \
             WebFetch(domain:localhost) in your config denies."
                .into()
        )
    );
    let err = get(&p, "http://public.test/page", &lookup)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Failed(m) if m.ends_with("which rule WebFetch(domain:93.184.216.34) in your config denies.")),
        "{err:?}"
    );
    assert_eq!(site.seen(), Vec::<String>::new());
}
