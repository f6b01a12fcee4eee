//! OpenAI Chat Completions request bodies: the system prompt first, assistant tool calls
//! as `tool_calls` with JSON-string arguments, tool results as `role: "tool"` messages in
//! the order of the calls they answer (the images a tool returned go in one `user`
//! message after them, since a `tool` message takes only text), tools as
//! `type: function`, `stream: true` with `stream_options.include_usage`. Thinking is not
//! sent back (compatible servers reject it).
//!
//! The body is serialised from structs that borrow the request's strings, with no JSON
//! tree in between. Their fields are in alphabetical order, as the `serde_json::Map`
//! of the encoder before had its keys, so the bytes stayed the same
//! (`request_tests.rs` holds that encoder and compares).

use std::borrow::Cow;
use std::fmt;

use roocode_protocol::content::{ContentBlock, ImageData, Message, Role};
use serde::Serialize;
use serde::ser::{Error as _, Serializer};
use serde_json::Value;

use crate::llm::ModelRequest;
use crate::llm::wire::{MaxTokensField, ObjectInput};

/// The JSON body for `req`.
pub(crate) fn encode(
    req: &ModelRequest<'_>,
    max_field: MaxTokensField,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(WireMessage::new(
            "system",
            Content::Text(Cow::Borrowed(&req.system)),
        ));
    }
    let mut call_order: Vec<&str> = Vec::new();
    for m in &req.messages {
        match m.role {
            Role::Assistant => {
                call_order = m.tool_uses().map(|(id, _, _)| id).collect();
                messages.push(assistant(m));
            }
            Role::User => user(m, &call_order, &mut messages),
        }
    }
    let limit = Some(req.max_tokens);
    let body = Body {
        max_completion_tokens: limit.filter(|_| max_field == MaxTokensField::MaxCompletionTokens),
        max_tokens: limit.filter(|_| max_field == MaxTokensField::MaxTokens),
        messages,
        model: &req.model,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        tools: req
            .tools
            .iter()
            .map(|t| Tool {
                function: Function {
                    description: &t.description,
                    name: &t.name,
                    parameters: &t.input_schema,
                },
                kind: "function",
            })
            .collect(),
    };
    serde_json::to_vec(&body)
}

/// The request body; every struct below has its fields in alphabetical order.
#[derive(Serialize)]
struct Body<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    messages: Vec<WireMessage<'a>>,
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Tool<'a> {
    function: Function<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct Function<'a> {
    description: &'a str,
    name: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    content: Content<'a>,
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ToolCall<'a>>,
}

impl<'a> WireMessage<'a> {
    fn new(role: &'static str, content: Content<'a>) -> Self {
        WireMessage {
            content,
            role,
            tool_call_id: None,
            tool_calls: Vec::new(),
        }
    }
}

/// A message's `content`: `null`, a string, or an array of parts.
#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Null,
    Text(Cow<'a, str>),
    Parts(Vec<Part<'a>>),
}

/// A part of a user message with an image in it.
#[derive(Serialize)]
#[serde(untagged)]
enum Part<'a> {
    Text {
        text: Cow<'a, str>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
    Image {
        image_url: ImageUrl<'a>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

impl<'a> Part<'a> {
    fn image(media_type: &'a str, data: &'a str) -> Self {
        Part::Image {
            image_url: ImageUrl {
                url: DataUrl { media_type, data },
            },
            kind: "image_url",
        }
    }
}

#[derive(Serialize)]
struct ImageUrl<'a> {
    url: DataUrl<'a>,
}

/// `data:<media type>;base64,<data>`, written as a JSON string without building it.
struct DataUrl<'a> {
    media_type: &'a str,
    data: &'a str,
}

impl fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data:{};base64,{}", self.media_type, self.data)
    }
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[derive(Serialize)]
struct ToolCall<'a> {
    function: CallFunction<'a>,
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    /// The input as JSON text, in a JSON string.
    #[serde(serialize_with = "json_text")]
    arguments: &'a Value,
    name: &'a str,
}

/// Serialises a tool input (made an object, see [`ObjectInput`]) as its JSON text.
fn json_text<S: Serializer>(input: &&Value, serializer: S) -> Result<S::Ok, S::Error> {
    let text = serde_json::to_string(&ObjectInput(input)).map_err(S::Error::custom)?;
    serializer.serialize_str(&text)
}

fn assistant(m: &Message) -> WireMessage<'_> {
    let text = joined(m.content.iter().filter_map(|b| match b {
        ContentBlock::Text { text } => Some(text.as_str()),
        _ => None,
    }));
    let tool_calls: Vec<ToolCall<'_>> = m
        .tool_uses()
        .map(|(id, name, input)| ToolCall {
            function: CallFunction {
                arguments: input,
                name,
            },
            id,
            kind: "function",
        })
        .collect();
    let content = match (text.is_empty(), tool_calls.is_empty()) {
        (true, false) => Content::Null,
        _ => Content::Text(text),
    };
    WireMessage {
        tool_calls,
        ..WireMessage::new("assistant", content)
    }
}

/// Tool results first (as `tool` messages, in the order of the preceding assistant
/// message's calls), then one `user` message: the images the tools returned (a `tool`
/// message takes only text), each call's under a line naming it, and the user's own
/// text and images.
fn user<'a>(m: &'a Message, call_order: &[&str], out: &mut Vec<WireMessage<'a>>) {
    let mut results: Vec<(usize, &'a str, &'a [ImageData], WireMessage<'a>)> = Vec::new();
    let mut texts: Vec<&'a str> = Vec::new();
    let mut own: Vec<Part<'a>> = Vec::new();
    let mut has_image = false;
    for b in &m.content {
        match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                images,
            } => {
                let position = call_order
                    .iter()
                    .position(|id| id == tool_use_id)
                    .unwrap_or(usize::MAX);
                let content = match (*is_error, content.starts_with("Error")) {
                    (true, false) => Cow::Owned(format!("Error: {content}")),
                    _ => Cow::Borrowed(content.as_str()),
                };
                results.push((
                    position,
                    tool_use_id,
                    images,
                    WireMessage {
                        tool_call_id: Some(tool_use_id),
                        ..WireMessage::new("tool", Content::Text(content))
                    },
                ));
            }
            ContentBlock::Text { text } if !text.is_empty() => {
                texts.push(text);
                own.push(Part::Text {
                    text: Cow::Borrowed(text),
                    kind: "text",
                });
            }
            ContentBlock::Image { media_type, data } => {
                has_image = true;
                own.push(Part::image(media_type, data));
            }
            _ => {}
        }
    }
    results.sort_by_key(|(position, ..)| *position); // stable: unknown ids keep their order
    let mut parts: Vec<Part<'a>> = Vec::new();
    for (_, id, images, message) in results {
        out.push(message);
        if images.is_empty() {
            continue;
        }
        has_image = true;
        parts.push(Part::Text {
            text: Cow::Owned(format!("(images returned by tool call {id})")),
            kind: "text",
        });
        parts.extend(images.iter().map(|i| Part::image(&i.media_type, &i.data)));
    }
    parts.append(&mut own);
    match (parts.is_empty(), has_image) {
        (true, _) => {}
        (false, false) => out.push(WireMessage::new(
            "user",
            Content::Text(join(&texts, "\n\n")),
        )),
        (false, true) => out.push(WireMessage::new("user", Content::Parts(parts))),
    }
}

/// The concatenation of `texts`, borrowed when there is at most one.
fn joined<'a>(texts: impl Iterator<Item = &'a str>) -> Cow<'a, str> {
    let texts: Vec<&str> = texts.collect();
    join(&texts, "")
}

fn join<'a>(texts: &[&'a str], separator: &str) -> Cow<'a, str> {
    match texts {
        [] => Cow::Borrowed(""),
        [one] => Cow::Borrowed(one),
        many => Cow::Owned(many.join(separator)),
    }
}
