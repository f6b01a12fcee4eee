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
//! names it). The refusal is kept in [`Refusals`] so the tool can explain it instead of
//! reporting a bare connection error.

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
}

/// Refusals of one fetch, read back when a request fails.
#[derive(Debug, Clone, Default)]
pub(crate) struct Refusals(Arc<Mutex<Vec<Refusal>>>);

impl Refusals {
    fn push(&self, refusal: Refusal) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(refusal);
    }

    /// The refusal of `host`, if there was one.
    pub(crate) fn of(&self, host: &Host) -> Option<Refusal> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|r| &r.host == host)
            .cloned()
    }
}

/// The checking resolver handed to the HTTP client.
pub(crate) struct PinnedResolver {
    pub lookup: Lookup,
    pub may_be_local: LocalPolicy,
    pub refusals: Refusals,
}

#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to {address}, {}", class.describe())]
struct Refused {
    host: Host,
    address: IpAddr,
    class: AddressClass,
}

impl PinnedResolver {
    /// The addresses `name` may be connected to, or why none may.
    pub(crate) async fn check(&self, name: &str) -> io::Result<Vec<IpAddr>> {
        let host = Host::parse(name).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{name:?} is not a host name"),
            )
        })?;
        let addrs = (self.lookup)(name.to_string()).await?;
        if addrs.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{host} has no addresses"),
            ));
        }
        if !(self.may_be_local)(&host) {
            // One local address among public ones is enough to refuse the name: a
            // client tries them in turn.
            if let Some((address, class)) = addrs
                .iter()
                .map(|&a| (a, classify_ip(a)))
                .find(|(_, class)| class.is_local())
            {
                let refused = Refused {
                    host: host.clone(),
                    address,
                    class,
                };
                self.refusals.push(Refusal {
                    host,
                    address,
                    class,
                });
                return Err(io::Error::new(io::ErrorKind::PermissionDenied, refused));
            }
        }
        Ok(addrs)
    }
}

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = PinnedResolver {
            lookup: self.lookup.clone(),
            may_be_local: self.may_be_local.clone(),
            refusals: self.refusals.clone(),
        };
        let name = name.as_str().to_string();
        async move {
            let addrs = this.check(&name).await?;
            let addrs: Addrs = Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        }
        .boxed()
    }
}
