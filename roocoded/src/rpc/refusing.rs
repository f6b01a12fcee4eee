//! [`Refusing`]: the one shape of RPC middleware the daemon uses, a rule that may refuse
//! a call before any handler sees it (the handshake, calls from inside commands). The
//! refused call gets the rule's error under its own id; batches never reach a handler
//! (the frame pre-parser refuses them) and notifications get no answer, so both pass.

use jsonrpsee::MethodResponse;
use jsonrpsee::core::middleware::{Batch, Notification, RpcServiceT};
use jsonrpsee::types::{ErrorObjectOwned, Request};

/// Decides, per call, whether it may run.
pub trait Rule: Clone + Send + Sync + 'static {
    /// Why `request` may not run, if it may not.
    fn refusal(&self, request: &Request<'_>) -> Option<ErrorObjectOwned>;
}

/// The middleware: `rule` in front of `service`, one per connection.
#[derive(Clone)]
pub struct Refusing<S, R> {
    pub service: S,
    pub rule: R,
}

impl<S, R> RpcServiceT for Refusing<S, R>
where
    S: RpcServiceT<MethodResponse = MethodResponse> + Send + Sync + Clone + 'static,
    R: Rule,
{
    type MethodResponse = S::MethodResponse;
    type NotificationResponse = S::NotificationResponse;
    type BatchResponse = S::BatchResponse;

    fn call<'a>(
        &self,
        request: Request<'a>,
    ) -> impl Future<Output = Self::MethodResponse> + Send + 'a {
        let refusal = self.rule.refusal(&request);
        let service = self.service.clone();
        async move {
            match refusal {
                Some(err) => MethodResponse::error(request.id().clone(), err),
                None => service.call(request).await,
            }
        }
    }

    fn batch<'a>(
        &self,
        requests: Batch<'a>,
    ) -> impl Future<Output = Self::BatchResponse> + Send + 'a {
        self.service.batch(requests)
    }

    fn notification<'a>(
        &self,
        n: Notification<'a>,
    ) -> impl Future<Output = Self::NotificationResponse> + Send + 'a {
        self.service.notification(n)
    }
}
