//! Messages as the model sees them: a role and a list of content blocks.
//!
//! The same shape is stored in the database, sent in `assistant_message` events and
//! exported as JSONL, and each LLM protocol adapter converts it to its own format.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// Model reasoning; `signature` must be sent back verbatim (Anthropic).
    Thinking {
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    /// What a tool call returned: its text, and the images it returned beside it
    /// (histories written before tools returned images have none).
    ToolResult {
        tool_use_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageData>,
    },
    Image {
        media_type: String,
        /// Base64-encoded bytes.
        data: String,
    },
    /// A block type this build does not know (a newer daemon's); its fields are
    /// dropped, so a client shows nothing of it. The daemon never stores one.
    #[serde(other)]
    Unknown,
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }
}

/// An image a tool returned, inside its [`ContentBlock::ToolResult`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImageData {
    /// `image/png`, `image/jpeg`, …
    pub media_type: String,
    /// Base64-encoded bytes.
    pub data: String,
}

impl ImageData {
    pub fn new(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            media_type: media_type.into(),
            data: data.into(),
        }
    }

    /// The number of bytes the base64 data decodes to.
    pub fn decoded_len(&self) -> usize {
        let data = self.data.trim_end_matches('=');
        data.len() * 3 / 4
    }

    /// What a transcript shows instead of the bytes, e.g. `[image image/png, 1.2 KiB]`.
    pub fn note(&self) -> String {
        format!(
            "[image {}, {}]",
            self.media_type,
            human_size(self.decoded_len())
        )
    }
}

/// `512 B`, `1.2 KiB`, `3.4 MiB`.
fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// One message of the model context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }

    /// The concatenated text blocks of this message.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls this message makes, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// Token counts of one model call or a sum of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Cost in US dollars; `None` when the model's price is unknown (never shown as zero).
    #[serde(default)]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Adds `other` to `self`; the cost stays unknown if either is unknown.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_result_stored_before_images_still_parses_and_is_written_the_same() {
        let old = r#"{"type":"tool_result","tool_use_id":"t","content":"ok","is_error":false}"#;
        let block: ContentBlock = serde_json::from_str(old).unwrap();
        assert_eq!(
            block,
            ContentBlock::ToolResult {
                tool_use_id: "t".into(),
                content: "ok".into(),
                is_error: false,
                images: Vec::new(),
            }
        );
        assert_eq!(serde_json::to_string(&block).unwrap(), old);
    }

    #[test]
    fn a_tool_result_with_an_image_round_trips() {
        let block = ContentBlock::ToolResult {
            tool_use_id: "t".into(),
            content: "one pixel:".into(),
            is_error: false,
            images: vec![ImageData::new("image/png", "aGVsbG8=")],
        };
        let json = serde_json::to_string(&block).unwrap();
        assert!(
            json.ends_with(r#""images":[{"media_type":"image/png","data":"aGVsbG8="}]}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<ContentBlock>(&json).unwrap(), block);
    }

    #[test]
    fn an_image_note_gives_its_type_and_decoded_size() {
        assert_eq!(
            ImageData::new("image/png", "aGVsbG8=").note(),
            "[image image/png, 5 B]"
        );
        let big = ImageData::new("image/jpeg", "A".repeat(1640));
        assert_eq!(big.note(), "[image image/jpeg, 1.2 KiB]");
        let huge = ImageData::new("image/webp", "A".repeat(4 * 1024 * 1024));
        assert_eq!(huge.note(), "[image image/webp, 3.0 MiB]");
    }
}
