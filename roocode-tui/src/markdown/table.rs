//! Markdown tables: cells are collected as plain text, then laid out in aligned
//! columns when they fit the width, else one row a line with `│` between cells.

use pulldown_cmark::Alignment;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;
use crate::wrap::{Wrapper, str_width};

/// A table being collected.
pub struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(aligns: Vec<Alignment>) -> Self {
        Table {
            aligns,
            rows: Vec::new(),
        }
    }

    /// Starts a row (the head is the first one).
    pub fn row(&mut self) {
        self.rows.push(Vec::new());
    }

    /// Starts a cell of the current row.
    pub fn cell(&mut self) {
        if let Some(row) = self.rows.last_mut() {
            row.push(String::new());
        }
    }

    /// Text of the current cell.
    pub fn text(&mut self, text: &str) {
        if let Some(cell) = self.rows.last_mut().and_then(|r| r.last_mut()) {
            cell.push_str(&text.replace('\n', " "));
        }
    }

    /// The table as lines of at most `width` cells, each starting with `prefix`.
    pub fn render(self, width: usize, prefix: &[Span<'static>], base: Style) -> Vec<Line<'static>> {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return Vec::new();
        }
        let mut widths = vec![0usize; cols];
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(str_width(cell.trim()));
            }
        }
        let prefix_width: usize = prefix.iter().map(|s| s.width()).sum();
        let total = widths.iter().sum::<usize>() + 3 * (cols - 1) + prefix_width;
        let head = base.add_modifier(Modifier::BOLD);
        let mut out = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            let style = if r == 0 { head } else { base };
            if total <= width {
                let mut spans = prefix.to_vec();
                for (i, w) in widths.iter().enumerate() {
                    if i > 0 {
                        spans.push(Span::styled(" │ ", theme::DIM));
                    }
                    let cell = row.get(i).map_or("", |c| c.trim());
                    spans.push(Span::styled(self.align(i, cell, *w), style));
                }
                out.push(Line::from(spans));
                if r == 0 {
                    let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                    let mut spans = prefix.to_vec();
                    spans.push(Span::styled(rule.join("─┼─"), theme::DIM));
                    out.push(Line::from(spans));
                }
            } else {
                let mut w = Wrapper::new(width, prefix.to_vec(), prefix.to_vec());
                for (i, cell) in row.iter().enumerate() {
                    if i > 0 {
                        w.push(" │ ", theme::DIM);
                    }
                    w.push(cell.trim(), style);
                }
                out.extend(w.finish());
            }
        }
        out
    }

    fn align(&self, col: usize, cell: &str, width: usize) -> String {
        let pad = width.saturating_sub(str_width(cell));
        match self.aligns.get(col) {
            Some(Alignment::Right) => format!("{}{cell}", " ".repeat(pad)),
            Some(Alignment::Center) => {
                let left = pad / 2;
                format!("{}{cell}{}", " ".repeat(left), " ".repeat(pad - left))
            }
            _ => format!("{cell}{}", " ".repeat(pad)),
        }
    }
}
