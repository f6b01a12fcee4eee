//! An MCP tool's result as the model gets it: the server's text as it is, embedded
//! resources with their address, links as links (to read with `ReadMcpResource`),
//! structured content as JSON when the server gave no text for it, images as images
//! (those a provider takes: PNG, JPEG, GIF or WebP, up to 5 MiB of base64), and a note
//! for what else carries bytes. `isError` makes it an error result.

use super::client::{CallOutput, McpContent};
use crate::tools::ToolOutput;

/// The image types every provider here takes.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The largest image sent, in base64 chars (Anthropic refuses images over 5 MB, and a
/// refused image would fail every later request of the session).
const MAX_IMAGE_CHARS: usize = 5 * 1024 * 1024;
/// Most images one result sends (a server could return hundreds, each kept in the
/// history and sent with every request after).
const MAX_IMAGES: usize = 8;

/// The result of a call of a tool of `server`.
pub fn to_output(server: &str, output: CallOutput) -> ToolOutput {
    let has_text = output
        .content
        .iter()
        .any(|c| matches!(c, McpContent::Text(_) | McpContent::ResourceText { .. }));
    let mut parts: Vec<String> = Vec::new();
    let mut images: Vec<(String, String)> = Vec::new();
    for content in output.content {
        match content {
            McpContent::Image { data, mime_type } if sendable(&data, &mime_type) => {
                if images.len() < MAX_IMAGES {
                    images.push((mime_type, data));
                } else {
                    parts.push(format!(
                        "[image {mime_type}: not shown, a tool result carries at most {MAX_IMAGES} images]"
                    ));
                }
            }
            other => parts.push(describe(server, &other)),
        }
    }
    if let Some(structured) = &output.structured
        && !has_text
    {
        parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    let mut text = parts.join("\n");
    if text.is_empty() && images.is_empty() {
        text = "(the tool returned no content)".into();
    }
    let out = if output.is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    images.into_iter().fold(out, |out, (mime_type, data)| {
        out.with_image(mime_type, data)
    })
}

/// Whether an image can go to the model as it is: a type every provider takes, not
/// too large, and base64 (anything else would be refused by the provider).
fn sendable(data: &str, mime_type: &str) -> bool {
    IMAGE_TYPES.contains(&mime_type)
        && !data.is_empty()
        && data.len() <= MAX_IMAGE_CHARS
        && data.len().is_multiple_of(4)
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

fn describe(server: &str, content: &McpContent) -> String {
    match content {
        McpContent::Text(text) => text.clone(),
        McpContent::Image { data, mime_type } => format!(
            "[image {mime_type}, {} bytes: not shown, the model takes PNG, JPEG, GIF or WebP \
             images of up to 5 MiB]",
            decoded_len(data)
        ),
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
    use roocode_protocol::content::ImageData;
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
            "found 2\n[resource file:///a]\nalpha\n[resource link: first <notes://1> — the first note; read it with ReadMcpResource (server \"notes\")]"
        );
        assert_eq!(
            out.images,
            [ImageData::new("image/png", "aGVsbG8=")],
            "the image is sent as an image, not as a note"
        );
    }

    #[test]
    fn images_alone_need_no_text_and_errors_keep_theirs() {
        let image = |mime: &str| McpContent::Image {
            data: "aGVsbG8=".into(),
            mime_type: mime.into(),
        };
        let out = to_output(
            "s",
            CallOutput {
                content: vec![image("image/jpeg"), image("image/webp")],
                structured: None,
                is_error: true,
            },
        );
        assert!(out.is_error);
        assert_eq!(out.content, "");
        assert_eq!(
            out.images,
            [
                ImageData::new("image/jpeg", "aGVsbG8="),
                ImageData::new("image/webp", "aGVsbG8=")
            ]
        );
    }

    #[test]
    fn what_no_provider_takes_stays_a_note() {
        let out = to_output(
            "s",
            CallOutput {
                content: vec![
                    McpContent::Image {
                        data: "PHN2Zz4=".into(),
                        mime_type: "image/svg+xml".into(),
                    },
                    McpContent::Image {
                        data: "not base64!".into(),
                        mime_type: "image/png".into(),
                    },
                    McpContent::Audio {
                        data: "aGVsbG8=".into(),
                        mime_type: "audio/wav".into(),
                    },
                    McpContent::ResourceBlob {
                        uri: "file:///b".into(),
                        mime_type: Some("application/pdf".into()),
                        blob: "aGVsbG8=".into(),
                    },
                ],
                structured: None,
                is_error: false,
            },
        );
        assert!(out.images.is_empty(), "{:?}", out.images);
        assert_eq!(
            out.content,
            "[image image/svg+xml, 5 bytes: not shown, the model takes PNG, JPEG, GIF or WebP images of up to 5 MiB]\n\
             [image image/png, 8 bytes: not shown, the model takes PNG, JPEG, GIF or WebP images of up to 5 MiB]\n\
             [audio audio/wav, 5 bytes: not shown, no model here takes audio]\n\
             [resource file:///b: 5 bytes of application/pdf]"
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

    #[test]
    fn a_result_sends_at_most_a_few_images() {
        let image = || McpContent::Image {
            data: "aGVsbG8=".into(),
            mime_type: "image/png".into(),
        };
        let out = to_output(
            "s",
            CallOutput {
                content: (0..MAX_IMAGES + 2).map(|_| image()).collect(),
                structured: None,
                is_error: false,
            },
        );
        assert_eq!(out.images.len(), MAX_IMAGES);
        assert_eq!(
            out.content
                .matches("not shown, a tool result carries at most")
                .count(),
            2
        );
    }
}
