//! Before each request WebFetch resolves the URL's host itself and pins the addresses
//! ([`PinnedResolver::pin`]). A name that resolves to a local address it may not reach
//! (no rule names it) is put to the user as a permission request — the gate could not
//! know where the name leads when it approved the call — in every mode, as a URL that
//! names a local address is; "allow always" writes `WebFetch(domain:<name>)`. With
//! nobody to ask (`dontAsk`, no human), the call fails saying which rule would allow it.

use reqwest::Url;
use serde_json::json;

use super::resolve::{PinError, PinnedResolver, Refusal};
use crate::permission::network::Host;
use crate::permission::persist;
use crate::tools::{Approval, ToolContext, ToolError};

/// Resolves and pins the host of `url` (addresses need no resolving), asking the user
/// when it resolves to a local address no rule allows.
pub(super) async fn pin_host(
    url: &Url,
    resolver: &PinnedResolver,
    ctx: &ToolContext,
) -> Result<(), ToolError> {
    let Some(name) = url.host_str() else {
        return Ok(());
    };
    if matches!(Host::parse(name), Some(Host::Ip(_))) {
        return Ok(());
    }
    let pinned = tokio::select! {
        pinned = resolver.pin(name) => pinned,
        () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
    };
    let refusal = match pinned {
        Ok(()) => return Ok(()),
        Err(PinError::Lookup(e)) => {
            return Err(ToolError::Failed(format!(
                "Cannot fetch {url}: cannot resolve {name}: {e}"
            )));
        }
        Err(PinError::Denied {
            host,
            address,
            rule,
        }) => {
            return Err(ToolError::Failed(format!(
                "Permission denied: {host} resolves to {address}, which rule {rule} in your \
                 config denies."
            )));
        }
        Err(PinError::Refused(refusal)) => refusal,
    };
    let rule = format!("WebFetch(domain:{})", refusal.host.rule_text());
    let Some(human) = &ctx.human else {
        return Err(refused(&refusal, &rule, None));
    };
    let reason = format!(
        "WebFetch wants to fetch {url}: {} resolves to {}, {} — asked in every mode unless \
         an allow rule names the host, such as {rule}",
        refusal.host,
        refusal.address,
        refusal.class.describe()
    );
    let input = json!({ "url": url.as_str() });
    match human
        .approve("WebFetch", &input, url.as_str(), &reason)
        .await
    {
        Ok(Approval::Once) => {}
        Ok(Approval::Always) => {
            if let Err(e) = persist::append_allow_rule(&ctx.scope.root, &rule) {
                tracing::error!(%rule, "cannot add the allow rule: {e}");
            }
        }
        Ok(Approval::Denied { feedback }) => {
            let said = feedback
                .filter(|f| !f.trim().is_empty())
                .map(|f| format!(" and said: {f}"))
                .unwrap_or_else(|| ". Do not retry it; choose another way or ask the user".into());
            return Err(ToolError::Failed(format!(
                "Permission denied: {} resolves to {}, {}, and the user refused fetching it{said}.",
                refusal.host,
                refusal.address,
                refusal.class.describe()
            )));
        }
        Err(why) => return Err(refused(&refusal, &rule, Some(&why))),
    }
    resolver.pin_to(name, refusal.addrs);
    Ok(())
}

/// The call's error when nobody approved a local address.
fn refused(r: &Refusal, rule: &str, why: Option<&str>) -> ToolError {
    let why = why
        .map(|w| format!(" (Nobody was asked: {w}.)"))
        .unwrap_or_default();
    ToolError::Failed(format!(
        "Not fetched: {} resolves to {}, {}. WebFetch connects to local and private \
         addresses only with the user's approval or when an allow rule names the host; if \
         this is intended, the user can add \"{rule}\" to permissions.allow.{why}",
        r.host,
        r.address,
        r.class.describe()
    ))
}
