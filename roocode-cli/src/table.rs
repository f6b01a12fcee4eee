//! Plain-text tables: rows of cells under a header, each column padded to its widest
//! cell plus two spaces, the last column unpadded and every line trimmed at its end.

/// The rows (the header first) as text, one line each.
pub fn render(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(w - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `s`'s first line, at most `max` characters (`…` marks a cut).
pub fn clip(s: &str, max: usize) -> String {
    let one_line = s.lines().next().unwrap_or_default();
    if one_line.chars().count() <= max {
        return one_line.to_owned();
    }
    let mut out: String = one_line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_to_the_widest_cell() {
        let rows = vec![
            vec!["ID".to_owned(), "NAME".to_owned(), "X".to_owned()],
            vec!["abc".to_owned(), "n".to_owned(), String::new()],
        ];
        assert_eq!(render(&rows), "ID   NAME  X\nabc  n\n");
        assert_eq!(clip("abcdef\nmore", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
