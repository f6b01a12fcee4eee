//! Anthropic Messages request bodies: system as text blocks, messages in Anthropic's
//! block format, tools, `stream: true`, and `cache_control` breakpoints on the stable
//! prefix (the system block, the last tool, the last block of the older history and of
//! the newest message: four, Anthropic's maximum). A tool result's content is its text
//! as a string, or a text block and image blocks when the tool returned images.
//!
//! The body is serialised straight from the request's borrowed fields, with no JSON
//! tree in between (a long history would be copied string by string). Every object
//! writes its keys in alphabetical order, as the `serde_json::Map` of the encoder
//! before did, so the bytes stayed the same (`request_tests.rs` holds that encoder
//! and compares): the provider's prompt cache keys on them.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use roocode_protocol::content::{ContentBlock, ImageData, Message, Role};

use crate::llm::wire::ObjectInput;
use crate::llm::{ModelRequest, ToolSpec};

/// The JSON body for `req`.
pub(crate) fn encode(req: &ModelRequest<'_>) -> Result<Vec<u8>, serde_json::Error> {
    let body = Body {
        max_tokens: req.max_tokens,
        messages: Messages(&req.messages),
        model: &req.model,
        stream: true,
        system: (!req.system.is_empty()).then(|| {
            [SystemBlock {
                cache_control: EPHEMERAL,
                text: &req.system,
                kind: "text",
            }]
        }),
        tools: Tools(&req.tools),
    };
    serde_json::to_vec(&body)
}

/// The request body; fields in alphabetical order (see the module doc).
#[derive(Serialize)]
struct Body<'a> {
    max_tokens: u32,
    messages: Messages<'a>,
    model: &'a str,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<[SystemBlock<'a>; 1]>,
    #[serde(skip_serializing_if = "Tools::is_empty")]
    tools: Tools<'a>,
}

/// `{"type": "ephemeral"}`: a prompt-cache breakpoint.
#[derive(Serialize, Clone, Copy)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

#[derive(Serialize)]
struct SystemBlock<'a> {
    cache_control: CacheControl,
    text: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The tools, a cache breakpoint on the last one.
struct Tools<'a>(&'a [ToolSpec]);

impl Tools<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
    description: &'a str,
    input_schema: &'a Value,
    name: &'a str,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let last = self.0.len().saturating_sub(1);
        serializer.collect_seq(self.0.iter().enumerate().map(|(i, t)| Tool {
            cache_control: (i == last).then_some(EPHEMERAL),
            description: &t.description,
            input_schema: &t.input_schema,
            name: &t.name,
        }))
    }
}

/// The messages; the last two (the end of the older history, and the newest
/// message) carry a cache breakpoint.
struct Messages<'a>(&'a [std::borrow::Cow<'a, Message>]);

#[derive(Serialize)]
struct WireMessage<'a> {
    content: Blocks<'a>,
    role: &'static str,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let first_breakpoint = self.0.len().saturating_sub(2);
        serializer.collect_seq(self.0.iter().enumerate().map(|(i, m)| WireMessage {
            content: Blocks {
                blocks: &m.content,
                breakpoint: i >= first_breakpoint,
            },
            role: match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            },
        }))
    }
}

/// One message's blocks, without those the API would reject (empty text, thinking
/// without the signature that proves it came from Anthropic); `(empty)` text when
/// none is left, since the API rejects empty messages. With `breakpoint`, the last
/// block that may carry one (not thinking) gets `cache_control`.
struct Blocks<'a> {
    blocks: &'a [ContentBlock],
    breakpoint: bool,
}

impl Blocks<'_> {
    fn sent(&self) -> impl Iterator<Item = &ContentBlock> {
        self.blocks.iter().filter(|b| match b {
            ContentBlock::Text { text } => !text.is_empty(),
            ContentBlock::Thinking { signature, .. } => signature.is_some(),
            // Never stored by the daemon; skipped rather than sent if one ever were.
            ContentBlock::Unknown => false,
            _ => true,
        })
    }
}

impl Serialize for Blocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let marked = self
            .sent()
            .enumerate()
            .filter(|(_, b)| {
                !matches!(
                    b,
                    ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. }
                )
            })
            .last()
            .map(|(i, _)| i)
            .filter(|_| self.breakpoint);
        let mut seq = serializer.serialize_seq(None)?;
        let mut any = false;
        for (i, block) in self.sent().enumerate() {
            any = true;
            seq.serialize_element(&WireBlock {
                block,
                cache: marked == Some(i),
            })?;
        }
        if !any {
            let empty = ContentBlock::text("(empty)");
            seq.serialize_element(&WireBlock {
                block: &empty,
                cache: self.breakpoint,
            })?;
        }
        seq.end()
    }
}

/// One block in Anthropic's format, keys in alphabetical order.
struct WireBlock<'a> {
    block: &'a ContentBlock,
    cache: bool,
}

impl Serialize for WireBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.cache {
            map.serialize_entry("cache_control", &EPHEMERAL)?;
        }
        match self.block {
            ContentBlock::Text { text } => {
                map.serialize_entry("text", text)?;
                map.serialize_entry("type", "text")?;
            }
            ContentBlock::Thinking {
                thinking,
                signature,
            } => {
                map.serialize_entry("signature", signature)?;
                map.serialize_entry("thinking", thinking)?;
                map.serialize_entry("type", "thinking")?;
            }
            ContentBlock::RedactedThinking { data } => {
                map.serialize_entry("data", data)?;
                map.serialize_entry("type", "redacted_thinking")?;
            }
            ContentBlock::ToolUse { id, name, input } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("input", &ObjectInput(input))?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("type", "tool_use")?;
            }
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
            } => {
                if !images.is_empty() {
                    map.serialize_entry("content", &ResultBlocks { content, images })?;
                } else if !content.is_empty() {
                    map.serialize_entry("content", content)?;
                }
                if *is_error {
                    map.serialize_entry("is_error", &true)?;
                }
                map.serialize_entry("tool_use_id", tool_use_id)?;
                map.serialize_entry("type", "tool_result")?;
            }
            ContentBlock::Image { media_type, data } => {
                map.serialize_entry("source", &ImageSource { data, media_type })?;
                map.serialize_entry("type", "image")?;
            }
            // Filtered out by `Blocks::sent`.
            ContentBlock::Unknown => {}
        }
        map.end()
    }
}

/// A tool result with images as a block list: its text (when it has any), then one
/// image block per image. A result without images stays a plain string.
struct ResultBlocks<'a> {
    content: &'a str,
    images: &'a [ImageData],
}

impl Serialize for ResultBlocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        if !self.content.is_empty() {
            seq.serialize_element(&TextBlock {
                text: self.content,
                kind: "text",
            })?;
        }
        for image in self.images {
            seq.serialize_element(&ImageBlock {
                source: ImageSource {
                    data: &image.data,
                    media_type: &image.media_type,
                },
                kind: "image",
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct TextBlock<'a> {
    text: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct ImageBlock<'a> {
    source: ImageSource<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `{"data", "media_type", "type": "base64"}`.
struct ImageSource<'a> {
    data: &'a str,
    media_type: &'a str,
}

impl Serialize for ImageSource<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("data", self.data)?;
        map.serialize_entry("media_type", self.media_type)?;
        map.serialize_entry("type", "base64")?;
        map.end()
    }
}
