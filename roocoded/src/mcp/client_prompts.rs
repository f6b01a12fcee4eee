//! The prompts of a server ([`McpClient::prompts`], [`McpClient::prompt`]), asked for
//! only when its capabilities announce prompts: a server that does not is taken to
//! have none. `notifications/prompts/list_changed` wakes [`McpClient::prompts_changed`].

use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::model::{GetPromptRequestParams, JsonObject, PromptMessage, Role};
use serde_json::Value;

use super::{McpClient, McpError, content_of, service_error};
use crate::mcp::prompt_text::{McpPromptMessage, PromptRole};
use crate::mcp::prompts::{McpPrompt, McpPromptArg};

impl McpClient {
    /// Whether the server's capabilities announce prompts.
    pub fn has_prompts(&self) -> bool {
        self.peer
            .peer_info()
            .is_some_and(|i| i.capabilities.prompts.is_some())
    }

    /// Waits until the server says its prompts changed
    /// (`notifications/prompts/list_changed`; one that came while nobody waited counts).
    pub async fn prompts_changed(&self) {
        self.heard.prompts_changed.notified().await;
    }

    /// Every prompt the server has (all pages); none when it announces no prompts.
    pub async fn prompts(&self) -> Result<Vec<McpPrompt>, McpError> {
        if !self.has_prompts() {
            return Ok(Vec::new());
        }
        let prompts = self.peer.list_all_prompts().await.map_err(service_error)?;
        Ok(prompts
            .into_iter()
            .map(|p| McpPrompt {
                name: p.name,
                description: p.description.or(p.title),
                arguments: p
                    .arguments
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| McpPromptArg {
                        name: a.name,
                        description: a.description.or(a.title),
                        required: a.required == Some(true),
                    })
                    .collect(),
            })
            .collect())
    }

    /// The messages of prompt `name` filled in with `arguments`, within `timeout`.
    pub async fn prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        timeout: Duration,
    ) -> Result<Vec<McpPromptMessage>, McpError> {
        let arguments: JsonObject = arguments
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let result = tokio::time::timeout(timeout, self.peer.get_prompt(params))
            .await
            .map_err(|_| McpError::CallTimeout(timeout))?
            .map_err(service_error)?;
        Ok(result.messages.into_iter().map(message_of).collect())
    }
}

fn message_of(m: PromptMessage) -> McpPromptMessage {
    McpPromptMessage {
        role: match m.role {
            Role::User => PromptRole::User,
            Role::Assistant => PromptRole::Assistant,
        },
        content: content_of(m.content),
    }
}

#[cfg(test)]
#[path = "client_prompts_tests.rs"]
mod tests;
