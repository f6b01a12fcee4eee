//! Markdown of the assistant's answers rendered to wrapped, styled terminal lines:
//! headings, paragraphs with emphasis, strong, strikethrough, links and inline code,
//! bullet and numbered lists (nested), block quotes, rules, tables, and code blocks on
//! their own background. The result depends only on the text and the width, so the
//! conversation caches it per message and width.

mod table;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;
use crate::wrap::{Wrapper, hard_wrap};

use table::Table;

/// `text` as lines of at most `width` cells, in `base` style.
pub fn render(text: &str, width: usize, base: Style) -> Vec<Line<'static>> {
    let mut r = Renderer::new(width.max(4), base);
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    for event in Parser::new_ext(text, options) {
        r.event(event);
    }
    r.finish()
}

struct ListState {
    /// The next number of an ordered list.
    next: Option<u64>,
}

struct Renderer {
    width: usize,
    out: Vec<Line<'static>>,
    styles: Vec<Style>,
    /// The block being filled with inline text.
    para: Option<Wrapper>,
    lists: Vec<ListState>,
    /// The marker of a list item whose first line is not written yet.
    bullet: Option<String>,
    quote_depth: usize,
    /// A block ended: the next one is separated by a blank line.
    gap: bool,
    code: Option<String>,
    table: Option<Table>,
}

impl Renderer {
    fn new(width: usize, base: Style) -> Self {
        Renderer {
            width,
            out: Vec::new(),
            styles: vec![base],
            para: None,
            lists: Vec::new(),
            bullet: None,
            quote_depth: 0,
            gap: false,
            code: None,
            table: None,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let s = f(self.style());
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                if let Some(table) = &mut self.table {
                    table.text(&t);
                } else {
                    let style = self.style().patch(theme::CODE_INLINE);
                    self.inline(&t, style);
                }
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::Html(t) | Event::InlineHtml(t) => {
                let t = t.trim_end_matches('\n').to_owned();
                self.text(&t);
            }
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => {
                if let Some(p) = &mut self.para {
                    p.hard_break();
                }
            }
            Event::Rule => {
                self.flush();
                self.block_start();
                let (first, _) = self.prefixes();
                let mut spans = first;
                let used: usize = spans.iter().map(|s| s.width()).sum();
                spans.push(Span::styled(
                    "─".repeat(self.width.saturating_sub(used)),
                    theme::DIM,
                ));
                self.out.push(Line::from(spans));
                self.gap = true;
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::DefinitionListTitle => self.block_start(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.block_start();
                let style = match level {
                    HeadingLevel::H1 => theme::HEADING1,
                    HeadingLevel::H2 => theme::HEADING2,
                    _ => theme::HEADING,
                };
                self.push_style(|s| s.patch(style));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.block_start();
                self.quote_depth += 1;
                self.push_style(|s| s.patch(theme::QUOTE).add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(_) => {
                self.flush();
                self.block_start();
                self.code = Some(String::new());
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.block_start();
                }
                self.lists.push(ListState { next: start });
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len();
                let marker = match self.lists.last_mut() {
                    Some(ListState { next: Some(n) }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => match depth {
                        0 | 1 => "• ".to_owned(),
                        2 => "◦ ".to_owned(),
                        _ => "▪ ".to_owned(),
                    },
                };
                self.bullet = Some(marker);
            }
            Tag::Table(aligns) => {
                self.flush();
                self.block_start();
                self.table = Some(Table::new(aligns));
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.row();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell();
                }
            }
            Tag::Emphasis => self.push_style(|s| s.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|s| s.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(|s| s.add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } => self.push_style(|s| s.patch(theme::LINK)),
            Tag::Image { .. } => self.push_style(|s| s.patch(theme::DIM)),
            Tag::Superscript
            | Tag::Subscript
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.push_style(|s| s),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock | TagEnd::DefinitionListTitle => self.end_block(),
            TagEnd::Heading(_) => {
                self.end_block();
                self.pop_style();
            }
            TagEnd::BlockQuote(_) => {
                self.end_block();
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.pop_style();
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                self.code_block(code.trim_end_matches('\n'));
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.gap = self.lists.is_empty();
            }
            TagEnd::Item => self.flush(),
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let (first, _) = self.prefixes();
                    let lines = t.render(self.width, &first, self.style());
                    self.out.extend(lines);
                }
                self.gap = true;
            }
            TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell => {}
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => self.pop_style(),
        }
    }

    fn end_block(&mut self) {
        self.flush();
        if self.lists.is_empty() {
            self.gap = true;
        }
    }

    /// A blank line before a block that follows another (outside tight lists).
    fn block_start(&mut self) {
        if self.gap && !self.out.is_empty() {
            let (_, rest) = self.prefixes_without_bullet();
            self.out.push(Line::from(rest).style(Style::new()));
        }
        self.gap = false;
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.push_str(text);
        } else if let Some(table) = &mut self.table {
            table.text(text);
        } else {
            let style = self.style();
            self.inline(text, style);
        }
    }

    fn inline(&mut self, text: &str, style: Style) {
        if self.para.is_none() {
            let (first, rest) = self.prefixes();
            self.bullet = None;
            self.para = Some(Wrapper::new(self.width, first, rest));
        }
        if let Some(p) = &mut self.para {
            p.push(text, style);
        }
    }

    /// Writes out the block being filled.
    fn flush(&mut self) {
        if let Some(p) = self.para.take()
            && !p.is_empty()
        {
            self.out.extend(p.finish());
        }
    }

    /// The prefixes of the first and following lines of a block here: quote bars,
    /// list indentation, and the pending list marker.
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let (mut first, mut rest) = self.prefixes_without_bullet();
        let depth = self.lists.len();
        if depth > 0 {
            let marker = self.bullet.clone().unwrap_or_default();
            let marker_width = marker.chars().count().max(2);
            let indent = "  ".repeat(depth - 1);
            let pad = " ".repeat(marker_width);
            let shown = if marker.is_empty() {
                pad.clone()
            } else {
                marker
            };
            first.push(Span::raw(format!("{indent}{shown}")));
            rest.push(Span::raw(format!("{indent}{pad}")));
        }
        (first, rest)
    }

    fn prefixes_without_bullet(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut spans = Vec::new();
        for _ in 0..self.quote_depth {
            spans.push(Span::styled("│ ", theme::QUOTE));
        }
        (spans.clone(), spans)
    }

    fn code_block(&mut self, code: &str) {
        let (_, mut prefix) = self.prefixes();
        prefix.push(Span::styled(" ", theme::CODE_BLOCK));
        // One cell of margin on the right too, inside the background.
        let lines = hard_wrap(
            code,
            self.width.saturating_sub(1),
            &prefix,
            theme::CODE_BLOCK,
            true,
        );
        for mut line in lines {
            line.spans.push(Span::styled(" ", theme::CODE_BLOCK));
            self.out.push(line);
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if let Some(code) = self.code.take() {
            // An unterminated fence while the answer streams.
            self.code_block(code.trim_end_matches('\n'));
        }
        if let Some(t) = self.table.take() {
            let (first, _) = self.prefixes();
            let lines = t.render(self.width, &first, self.style());
            self.out.extend(lines);
        }
        self.out
    }
}

#[cfg(test)]
mod tests;
