//! `permission.respond` and `question.respond`: answers from any client; the daemon
//! records who decided (the client named in its connection's hello).

use jsonrpsee::Extensions;
use roocode_protocol::api::{PermissionApiServer, QuestionApiServer, RpcResult};
use roocode_protocol::event::DecidedBy;
use roocode_protocol::session::PermissionDecision;

use super::Handler;
use super::errors::to_rpc;
use super::handshake::HandshakeState;

fn decided_by(ext: &Extensions) -> DecidedBy {
    ext.get::<HandshakeState>()
        .map(HandshakeState::decided_by)
        .unwrap_or(DecidedBy {
            kind: "unknown".into(),
            pid: None,
        })
}

#[jsonrpsee::core::async_trait]
impl PermissionApiServer for Handler {
    async fn respond(
        &self,
        ext: &Extensions,
        request_id: String,
        decision: PermissionDecision,
        feedback: Option<String>,
    ) -> RpcResult<()> {
        self.0
            .engine
            .respond_permission(&request_id, decision, feedback, decided_by(ext))
            .await
            .map_err(to_rpc)
    }
}

#[jsonrpsee::core::async_trait]
impl QuestionApiServer for Handler {
    async fn respond(
        &self,
        ext: &Extensions,
        request_id: String,
        answers: Vec<String>,
    ) -> RpcResult<()> {
        self.0
            .engine
            .respond_question(&request_id, answers, decided_by(ext))
            .await
            .map_err(to_rpc)
    }
}
