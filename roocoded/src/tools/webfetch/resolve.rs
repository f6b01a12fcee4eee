//! WebFetch's DNS resolver, which pins what it checked: a name is resolved once per
//! connection, every address it resolves to is classified
//! ([`crate::permission::network`]), and the HTTP client connects only to the addresses
//! returned here — so a name that resolves to a public address for a check and to
//! 127.0.0.1 for the connection (DNS rebinding) cannot happen: there is one resolution,
//! and it is the one checked.
//!
//! A name whose addresses include a loopback, private, link-local, metadata or reserved
//! one is refused unless [`LocalPolicy`] allows local addresses for it (its spelling is
//! already local, so the permission gate approved a local target; or an allow rule
//! names it); one that resolves to an address a deny rule names is denied. WebFetch resolves each host with [`PinnedResolver::pin`] before its
//! request, so a refusal can be put to the user; what is pinned (checked, or approved)
//! is what the client gets when it resolves the name for the connection.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::permission::network::{AddressClass, Host, classify_ip};

/// Resolves a name to its addresses (the system resolver, or a fake in tests).
pub(crate) type Lookup =
    Arc<dyn Fn(String) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> + Send + Sync>;

/// Whether a name may resolve to non-public addresses.
pub(crate) type LocalPolicy = Arc<dyn Fn(&Host) -> bool + Send + Sync>;

/// The deny rule naming an address, if any: a name resolving to it is denied.
pub(crate) type DenyPolicy = Arc<dyn Fn(&Host) -> Option<String> + Send + Sync>;

/// The system resolver (`getaddrinfo` through tokio).
pub(crate) fn system_lookup() -> Lookup {
    Arc::new(|name: String| {
        async move {
            let addrs = tokio::net::lookup_host((name.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        }
        .boxed()
    })
}

/// A name refused because of where it resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub host: Host,
    pub address: IpAddr,
    pub class: AddressClass,
    /// Every address the name resolved to (pinned if the user approves).
    pub addrs: Vec<IpAddr>,
}

/// Why [`PinnedResolver::pin`] pinned nothing.
#[derive(Debug)]
pub(crate) enum PinError {
    /// The name does not resolve.
    Lookup(io::Error),
    /// It resolves to a local address it may not reach.
    Refused(Refusal),
    /// It resolves to an address a deny rule names.
    Denied {
        host: Host,
        address: IpAddr,
        rule: String,
    },
}

/// The checking resolver handed to the HTTP client; clones share their pins.
#[derive(Clone)]
pub(crate) struct PinnedResolver {
    pub lookup: Lookup,
    pub may_be_local: LocalPolicy,
    pub denied: DenyPolicy,
    /// Name (as the URL has it) → the addresses it may be connected to.
    pub pins: Arc<Mutex<HashMap<String, Vec<IpAddr>>>>,
}

impl PinnedResolver {
    pub(crate) fn new(lookup: Lookup, may_be_local: LocalPolicy, denied: DenyPolicy) -> Self {
        Self {
            lookup,
            may_be_local,
            denied,
            pins: Arc::default(),
        }
    }

    fn pinned(&self, name: &str) -> Option<Vec<IpAddr>> {
        self.pins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Connections to `name` go to `addrs` and nowhere else.
    pub(crate) fn pin_to(&self, name: &str, addrs: Vec<IpAddr>) {
        self.pins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_string(), addrs);
    }

    /// Resolves `name` once and pins its addresses if it may reach all of them.
    pub(crate) async fn pin(&self, name: &str) -> Result<(), PinError> {
        if self.pinned(name).is_some() {
            return Ok(());
        }
        let addrs = self.check(name).await?;
        self.pin_to(name, addrs);
        Ok(())
    }

    /// The addresses `name` may be connected to, or why none may.
    async fn check(&self, name: &str) -> Result<Vec<IpAddr>, PinError> {
        let host = Host::parse(name).ok_or_else(|| {
            PinError::Lookup(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{name:?} is not a host name"),
            ))
        })?;
        let addrs = (self.lookup)(name.to_string())
            .await
            .map_err(PinError::Lookup)?;
        if addrs.is_empty() {
            return Err(PinError::Lookup(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{host} has no addresses"),
            )));
        }
        // Deny beats allow: a deny rule naming an address covers every name for it.
        for &address in &addrs {
            if let Some(rule) = (self.denied)(&Host::Ip(address)) {
                return Err(PinError::Denied {
                    host,
                    address,
                    rule,
                });
            }
        }
        if !(self.may_be_local)(&host) {
            // One local address among public ones is enough to refuse the name: a
            // client tries them in turn.
            if let Some((address, class)) = addrs
                .iter()
                .map(|&a| (a, classify_ip(a)))
                .find(|(_, class)| class.is_local())
            {
                return Err(PinError::Refused(Refusal {
                    host,
                    address,
                    class,
                    addrs,
                }));
            }
        }
        Ok(addrs)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to {address}, {}", class.describe())]
struct Refused {
    host: Host,
    address: IpAddr,
    class: AddressClass,
}

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        let name = name.as_str().to_string();
        async move {
            // Pinned before the request; checked here too, so no name reaches the
            // client unchecked.
            let addrs = match this.pinned(&name) {
                Some(addrs) => addrs,
                None => match this.check(&name).await {
                    Ok(addrs) => addrs,
                    Err(PinError::Lookup(e)) => return Err(e.into()),
                    Err(PinError::Denied {
                        host,
                        address,
                        rule,
                    }) => {
                        return Err(
                            format!("{host} resolves to {address}, denied by {rule}").into()
                        );
                    }
                    Err(PinError::Refused(r)) => {
                        return Err(Refused {
                            host: r.host,
                            address: r.address,
                            class: r.class,
                        }
                        .into());
                    }
                },
            };
            let addrs: Addrs = Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        }
        .boxed()
    }
}
