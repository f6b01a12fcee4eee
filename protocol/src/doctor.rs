//! `doctor.run`: the daemon's health report for `roocode-cli doctor`, a list of named
//! checks each with a status and a sentence. Later features add their own checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Ok,
    /// Works, with a weaker guarantee or a missing optional piece.
    Warn,
    /// Broken: something the user must fix.
    Fail,
    /// A status this build does not know (a newer daemon's).
    #[serde(other)]
    Unknown,
}

impl CheckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "FAIL",
            CheckStatus::Unknown => "?",
        }
    }
}

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DoctorCheck {
    /// Short name: `daemon`, `sandbox`, `config`, `provider:anthropic`, …
    pub name: String,
    pub status: CheckStatus,
    /// What was found and, when not ok, what to do. May span lines.
    pub detail: String,
}

impl DoctorCheck {
    pub fn new(name: impl Into<String>, status: CheckStatus, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status,
            detail: detail.into(),
        }
    }
}

/// The report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DoctorReport {
    /// The daemon's build (`<version>+<git hash>`).
    pub build_id: String,
    pub checks: Vec<DoctorCheck>,
}
