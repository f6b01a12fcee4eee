//! What a WebFetch response holds, as text: the content type (or a sniff of the bytes)
//! decides between HTML (converted to Markdown without scripts and styles), other text
//! (decoded by its charset) and binary content (refused).

use super::{Page, ToolError};

/// Elements dropped from HTML before conversion: code, styling and embedded media
/// carry nothing readable.
const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed",
];
/// Bytes sniffed when the server gives no usable content type.
const SNIFF_BYTES: usize = 8192;
/// What kind of content a response holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
}

impl Page {
    /// `Fetched <url> (<type>, <n> bytes)`.
    pub(super) fn header(&self) -> String {
        let kind = self
            .content_type
            .as_deref()
            .map_or("no content type", mime_essence_str);
        format!("Fetched {} ({kind}, {} bytes)", self.url, self.body.len())
    }

    /// The body as text: decoded by its charset, HTML converted to Markdown. Binary
    /// content is an error.
    pub(crate) fn into_text(self) -> Result<String, ToolError> {
        let kind = classify(self.content_type.as_deref(), &self.body);
        if kind == Kind::Binary {
            let kind = self.content_type.as_deref().unwrap_or("unknown type");
            return Err(ToolError::Failed(format!(
                "{} returned binary content ({kind}, {} bytes); WebFetch only reads HTML and \
                 text.",
                self.url,
                self.body.len()
            )));
        }
        let text = decode(self.content_type.as_deref(), &self.body);
        Ok(match kind {
            Kind::Html => html_to_markdown(&text),
            _ => text,
        })
    }
}

/// The media type without parameters, as given.
fn mime_essence_str(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or_default().trim()
}

fn classify(content_type: Option<&str>, body: &[u8]) -> Kind {
    let essence = content_type
        .map(|c| mime_essence_str(c).to_ascii_lowercase())
        .unwrap_or_default();
    match essence.as_str() {
        "text/html" | "application/xhtml+xml" => return Kind::Html,
        "" | "application/octet-stream" | "binary/octet-stream" => return sniff(body),
        _ => {}
    }
    let textual = essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-sh"
                | "application/x-httpd-php"
                | "application/sql"
                | "application/graphql"
                | "application/x-ndjson"
                | "application/jsonl"
                | "application/csv"
        );
    if textual { Kind::Text } else { Kind::Binary }
}

/// Decide from the bytes: no NUL and valid UTF-8 in the first bytes is text (HTML if it
/// starts like HTML).
fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return Kind::Binary;
    }
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        // A character cut at the sniff boundary is fine.
        Err(e) => e.error_len().is_none() && head.len() == SNIFF_BYTES.min(body.len()),
    };
    if !valid {
        return Kind::Binary;
    }
    let start = String::from_utf8_lossy(&head[..head.len().min(512)])
        .trim_start()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// Decode by the `charset` parameter (UTF-8 when absent or unknown; a BOM wins).
fn decode(content_type: Option<&str>, body: &[u8]) -> String {
    let label = content_type.and_then(|c| {
        c.split(';').skip(1).find_map(|param| {
            let (name, value) = param.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| value.trim().trim_matches('"').to_string())
        })
    });
    let encoding = label
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    encoding.decode(body).0.into_owned()
}

/// HTML as Markdown, without scripts and styles; runs of blank lines squeezed to one.
fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED_TAGS.to_vec())
        .build();
    // The converter never fails on a string input; fall back to the raw HTML if it does.
    let markdown = converter.convert(html).unwrap_or_else(|_| html.to_string());
    let mut out = String::with_capacity(markdown.len());
    let mut blank = 0;
    for line in markdown.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}
