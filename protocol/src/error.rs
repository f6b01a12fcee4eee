//! JSON-RPC error codes the daemon uses, so clients can tell failures apart.

/// The session id (or prefix) matched no session.
pub const SESSION_NOT_FOUND: i32 = -32001;
/// The session id prefix matched several sessions.
pub const AMBIGUOUS_SESSION: i32 = -32002;
/// The request was understood but is not valid now (bad mode, unknown command, …).
pub const INVALID_REQUEST: i32 = -32003;
/// A configuration file or the client's environment is broken.
pub const CONFIG_ERROR: i32 = -32004;
/// The call needs `daemon.hello` first, or the client speaks another protocol.
pub const HANDSHAKE_REQUIRED: i32 = -32005;
/// The caller is (a descendant of) a command the daemon runs for the model: it may not
/// answer permissions or questions, change the mode or send messages.
pub const REFUSED_FROM_COMMAND: i32 = -32006;
/// Something failed inside the daemon; see its log.
pub const INTERNAL: i32 = -32010;
