//! The JSON Schema of the wire types, derived from the Rust types, for clients not
//! written in Rust (as codex does for its app server). `protocol/schema/protocol.json`
//! holds every request, response and event type under `$defs`, the error codes and
//! the protocol version; a test fails when the checked-in file differs from what the
//! types derive, so it cannot go stale silently. Regenerate it with
//! `ROOCODE_WRITE_SCHEMA=1 cargo test -p roocode-protocol schema`.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::PROTOCOL_VERSION;
use crate::agents::{AgentDefinitions, AgentInfo};
use crate::daemon::{ClientInfo, DaemonInfo, HelloResponse};
use crate::doctor::DoctorReport;
use crate::error::{KNOWN_CODES, RpcErrorData};
use crate::event::Event;
use crate::mcp::{McpApproval, McpServerInfo};
use crate::prune::{PruneParams, PruneReport};
use crate::replay::{ReplayParams, ReplayStarted};
use crate::rewind::{RewindParams, RewindPlan, TurnSummary};
use crate::session::{
    ClientEnv, CommandInfo, CommandOutput, CreateParams, ExportPage, HistoryPage, ImportParams,
    PendingRequest, PermissionDecision, SendParams, SendResponse, SessionInfo,
};
use crate::teams::{MailInfo, TeamInfo};
use crate::trace::SessionTrace;

/// Where the schema is checked in, relative to the crate.
pub const SCHEMA_FILE: &str = "schema/protocol.json";

/// The schema document: `$defs` with every wire type (and those they use), plus the
/// protocol version and the RPC error codes by kind.
pub fn protocol_schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    // The types that appear as parameters, results and notifications of the API
    // (`crate::api`); whatever they contain is added beside them.
    generator.subschema_for::<ClientInfo>();
    generator.subschema_for::<AgentDefinitions>();
    generator.subschema_for::<AgentInfo>();
    generator.subschema_for::<HelloResponse>();
    generator.subschema_for::<DaemonInfo>();
    generator.subschema_for::<CreateParams>();
    generator.subschema_for::<SessionInfo>();
    generator.subschema_for::<SendParams>();
    generator.subschema_for::<SendResponse>();
    generator.subschema_for::<HistoryPage>();
    generator.subschema_for::<ExportPage>();
    generator.subschema_for::<ImportParams>();
    generator.subschema_for::<CommandOutput>();
    generator.subschema_for::<CommandInfo>();
    generator.subschema_for::<PendingRequest>();
    generator.subschema_for::<PermissionDecision>();
    generator.subschema_for::<ClientEnv>();
    generator.subschema_for::<DoctorReport>();
    generator.subschema_for::<TeamInfo>();
    generator.subschema_for::<MailInfo>();
    generator.subschema_for::<McpServerInfo>();
    generator.subschema_for::<McpApproval>();
    generator.subschema_for::<TurnSummary>();
    generator.subschema_for::<RewindParams>();
    generator.subschema_for::<ReplayParams>();
    generator.subschema_for::<crate::trace::TraceBody>();
    generator.subschema_for::<ReplayStarted>();
    generator.subschema_for::<RewindPlan>();
    generator.subschema_for::<SessionTrace>();
    generator.subschema_for::<PruneParams>();
    generator.subschema_for::<PruneReport>();
    generator.subschema_for::<Event>();
    generator.subschema_for::<RpcErrorData>();
    let defs = generator.take_definitions(true);
    let codes: Map<String, Value> = KNOWN_CODES
        .iter()
        .map(|c| (c.kind().to_owned(), Value::from(c.code())))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "RooCode daemon protocol",
        "description": "Wire types of the RooCode daemon's JSON-RPC API (generated from the roocode-protocol crate; do not edit). Methods are named group.method and take their parameters by name; session events arrive as `Event` notifications.",
        "x-protocol-version": PROTOCOL_VERSION,
        "x-error-codes": codes,
        "$defs": defs,
    })
}

/// The schema as checked in: pretty JSON with a final newline.
pub fn protocol_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&protocol_schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_schema_matches_the_types() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SCHEMA_FILE);
        let derived = protocol_schema_text();
        if std::env::var_os("ROOCODE_WRITE_SCHEMA").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &derived).unwrap();
            return;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == derived,
            "{} is stale: regenerate it with `ROOCODE_WRITE_SCHEMA=1 cargo test -p roocode-protocol schema` and commit it",
            path.display()
        );
    }

    #[test]
    fn the_schema_names_every_event_type_and_the_fallbacks() {
        let schema = protocol_schema();
        let text = schema.to_string();
        for kind in [
            "turn_completed",
            "text_delta",
            "snapshot",
            "resync",
            "unknown",
        ] {
            assert!(text.contains(&format!("\"{kind}\"")), "{kind} missing");
        }
        assert!(schema["$defs"]["Event"].is_object());
        assert_eq!(schema["x-error-codes"]["session_not_found"], -32001);
    }
}
