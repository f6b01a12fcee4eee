//! Which project servers the user approved: `mcp-approvals.json` in RooCode's data
//! directory. A project's `.mcp.json` or `.roocode/config.yaml` comes with a cloned
//! repository, so its servers start only once approved (`roocode-cli mcp approve`). An
//! approval is kept under the project's root and the server's approval key (a hash of
//! its transport, command, args, env names, cwd and url as written): a change to any of
//! them, or the same file in another repository, asks again.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::ServerConfig;
use crate::store::json_file::{JsonFile, now_secs, project_key};

/// The approvals file.
pub struct Approvals {
    file: JsonFile,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    approved: Vec<Approval>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Approval {
    project: String,
    server: String,
    key: String,
    /// Seconds since the Unix epoch.
    approved_at: u64,
}

impl Approvals {
    /// The approvals kept in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Approvals {
            file: JsonFile::new(data_dir.join("mcp-approvals.json")),
        }
    }

    /// Whether `server` of the project at `root` was approved as it is now. An
    /// unreadable file approves nothing (and says so in the log).
    pub fn is_approved(&self, root: &Path, server: &ServerConfig) -> bool {
        let file: File = match self.file.read() {
            Ok(file) => file,
            Err(e) => {
                tracing::warn!("cannot read the MCP approvals: {e}");
                return false;
            }
        };
        let (project, key) = (project_key(root), server.approval_key());
        file.approved
            .iter()
            .any(|a| a.project == project && a.key == key)
    }

    /// Approves `server` of the project at `root` as it is now.
    pub fn approve(&self, root: &Path, server: &ServerConfig) -> std::io::Result<()> {
        let (project, key) = (project_key(root), server.approval_key());
        self.file.update(|file: &mut File| {
            // The server's earlier approvals (of what it ran before) go.
            file.approved
                .retain(|a| !(a.project == project && (a.key == key || a.server == server.name)));
            file.approved.push(Approval {
                project,
                server: server.name.clone(),
                key,
                approved_at: now_secs(),
            });
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::McpServerEntry;
    use crate::mcp::config::Scope;

    fn server(command: &str) -> ServerConfig {
        ServerConfig {
            name: "files".into(),
            scope: Scope::Project,
            source: PathBuf::from("/p/.mcp.json"),
            entry: McpServerEntry {
                command: Some(command.into()),
                ..McpServerEntry::default()
            },
        }
    }

    #[test]
    fn an_approval_holds_for_its_project_and_what_it_runs() {
        let data = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let approvals = Approvals::new(data.path());
        assert!(!approvals.is_approved(a.path(), &server("npx")));
        approvals.approve(a.path(), &server("npx")).unwrap();
        assert!(approvals.is_approved(a.path(), &server("npx")));
        assert!(
            !approvals.is_approved(b.path(), &server("npx")),
            "another repository asks again"
        );
        assert!(
            !approvals.is_approved(a.path(), &server("./evil.sh")),
            "a change asks again"
        );
        approvals.approve(a.path(), &server("./other.sh")).unwrap();
        assert!(
            !approvals.is_approved(a.path(), &server("npx")),
            "replaced by the new approval"
        );

        std::fs::write(data.path().join("mcp-approvals.json"), "{broken").unwrap();
        assert!(!approvals.is_approved(a.path(), &server("./other.sh")));
        assert!(
            approvals.approve(a.path(), &server("npx")).is_err(),
            "a broken file is not overwritten"
        );
    }
}
