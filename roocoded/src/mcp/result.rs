//! An MCP tool's result as the model gets it: the server's text as it is, embedded
//! resources with their address, links as links (to read with `ReadMcpResource`),
//! structured content as JSON when the server gave no text for it, and a note for
//! what carries bytes. `isError` makes it an error result.

use super::client::{CallOutput, McpContent};
use crate::tools::ToolOutput;

/// The result of a call of a tool of `server`.
pub fn to_output(server: &str, output: CallOutput) -> ToolOutput {
    let mut parts: Vec<String> = output.content.iter().map(|c| describe(server, c)).collect();
    let has_text = output
        .content
        .iter()
        .any(|c| matches!(c, McpContent::Text(_) | McpContent::ResourceText { .. }));
    if let Some(structured) = &output.structured
        && !has_text
    {
        parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    let mut text = parts.join("\n");
    if text.is_empty() {
        text = "(the tool returned no content)".into();
    }
    if output.is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    }
}

fn describe(server: &str, content: &McpContent) -> String {
    match content {
        McpContent::Text(text) => text.clone(),
        McpContent::Image { data, mime_type } => {
            format!("[image {mime_type}, {} bytes]", decoded_len(data))
        }
        McpContent::Audio { data, mime_type } => format!(
            "[audio {mime_type}, {} bytes: not shown, no model here takes audio]",
            decoded_len(data)
        ),
        McpContent::ResourceText { uri, text, .. } => format!("[resource {uri}]\n{text}"),
        McpContent::ResourceBlob {
            uri,
            mime_type,
            blob,
        } => format!(
            "[resource {uri}: {} bytes of {}]",
            decoded_len(blob),
            mime_type.as_deref().unwrap_or("binary data")
        ),
        McpContent::Link {
            uri,
            name,
            description,
        } => {
            let about = description
                .as_deref()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            format!(
                "[resource link: {name} <{uri}>{about}; read it with ReadMcpResource (server \"{server}\")]"
            )
        }
    }
}

/// The number of bytes base64 `data` decodes to.
fn decoded_len(data: &str) -> usize {
    let data = data.trim_end_matches('=');
    data.len() * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_content_reaches_the_model() {
        let output = CallOutput {
            content: vec![
                McpContent::Text("found 2".into()),
                McpContent::Image {
                    data: "aGVsbG8=".into(),
                    mime_type: "image/png".into(),
                },
                McpContent::ResourceText {
                    uri: "file:///a".into(),
                    mime_type: None,
                    text: "alpha".into(),
                },
                McpContent::Link {
                    uri: "notes://1".into(),
                    name: "first".into(),
                    description: Some("the first note".into()),
                },
            ],
            structured: Some(json!({"count": 2})),
            is_error: false,
        };
        let out = to_output("notes", output);
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            "found 2\n[image image/png, 5 bytes]\n[resource file:///a]\nalpha\n[resource link: first <notes://1> — the first note; read it with ReadMcpResource (server \"notes\")]"
        );
    }

    #[test]
    fn structured_content_alone_is_sent_as_json_and_errors_stay_errors() {
        let out = to_output(
            "s",
            CallOutput {
                content: vec![],
                structured: Some(json!({"ok": false})),
                is_error: true,
            },
        );
        assert!(out.is_error);
        assert_eq!(out.content, "{\n  \"ok\": false\n}");
        let empty = to_output(
            "s",
            CallOutput {
                content: vec![],
                structured: None,
                is_error: false,
            },
        );
        assert_eq!(empty.content, "(the tool returned no content)");
    }
}
