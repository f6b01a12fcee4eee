//! Bounded capture of command output: the first and the last characters are kept, the
//! middle is counted and dropped ([`HeadTail`]), and bytes are decoded as UTF-8 across
//! read boundaries ([`Utf8Decoder`]).

/// Characters kept from the start of an output. Far more than the model ever sees at
/// once: an output over `context.large_result_chars` is saved whole to a file and the
/// conversation keeps a preview (layer 1, `context::large_results`), so this bound only
/// limits memory and the size of that file.
pub(crate) const HEAD_CHARS: usize = 512 * 1024;
/// Characters kept from the end of an output (same reasoning as [`HEAD_CHARS`]).
pub(crate) const TAIL_CHARS: usize = 512 * 1024;

/// Output kept as head + tail with a count of what was cut between them. Memory stays
/// bounded (about twice the tail limit) however much is pushed.
#[derive(Debug)]
pub(crate) struct HeadTail {
    head: String,
    head_chars: usize,
    head_max: usize,
    tail: String,
    tail_chars: usize,
    tail_max: usize,
    omitted_chars: u64,
    omitted_lines: u64,
}

impl Default for HeadTail {
    fn default() -> Self {
        Self::with_limits(HEAD_CHARS, TAIL_CHARS)
    }
}

impl HeadTail {
    pub(crate) fn with_limits(head_max: usize, tail_max: usize) -> Self {
        Self {
            head: String::new(),
            head_chars: 0,
            head_max,
            tail: String::new(),
            tail_chars: 0,
            tail_max,
            omitted_chars: 0,
            omitted_lines: 0,
        }
    }

    pub(crate) fn push(&mut self, mut text: &str) {
        if self.head_chars < self.head_max {
            let (byte, chars) = prefix(text, self.head_max - self.head_chars);
            self.head.push_str(&text[..byte]);
            self.head_chars += chars;
            text = &text[byte..];
        }
        if text.is_empty() {
            return;
        }
        self.tail.push_str(text);
        self.tail_chars += text.chars().count();
        // Trim only once the slack is used up, so the cost stays linear.
        if self.tail_chars > self.tail_max + self.tail_max.max(4096) {
            self.trim_tail();
        }
    }

    fn trim_tail(&mut self) {
        let excess = self.tail_chars.saturating_sub(self.tail_max);
        let (byte, _) = prefix(&self.tail, excess);
        self.omitted_lines += count_lines(&self.tail[..byte]);
        self.omitted_chars += excess as u64;
        self.tail.drain(..byte);
        self.tail_chars -= excess;
    }

    /// Nothing was pushed (or only empty strings).
    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    /// Empties this capture and returns what it held.
    pub(crate) fn take(&mut self) -> Self {
        std::mem::replace(self, Self::with_limits(self.head_max, self.tail_max))
    }

    /// The kept text, with a marker line where the middle was cut.
    pub(crate) fn render(&self) -> String {
        let excess = self.tail_chars.saturating_sub(self.tail_max);
        let (byte, _) = prefix(&self.tail, excess);
        let omitted_chars = self.omitted_chars + excess as u64;
        if omitted_chars == 0 {
            return format!("{}{}", self.head, self.tail);
        }
        let omitted_lines = self.omitted_lines + count_lines(&self.tail[..byte]);
        format!(
            "{}\n[... {omitted_chars} characters ({omitted_lines} lines) omitted from the middle of the output ...]\n{}",
            self.head,
            &self.tail[byte..]
        )
    }
}

/// Byte length and character count of the first `max` characters of `s`.
fn prefix(s: &str, max: usize) -> (usize, usize) {
    match s.char_indices().nth(max) {
        Some((byte, _)) => (byte, max),
        None => (s.len(), s.chars().count()),
    }
}

fn count_lines(s: &str) -> u64 {
    s.bytes().filter(|&b| b == b'\n').count() as u64
}

/// Decodes a byte stream as UTF-8 chunk by chunk: a character split across two reads
/// is carried over, invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub(crate) struct Utf8Decoder {
    carry: Vec<u8>,
}

impl Utf8Decoder {
    pub(crate) fn decode(&mut self, bytes: &[u8]) -> String {
        let joined;
        let mut rest: &[u8] = if self.carry.is_empty() {
            bytes
        } else {
            let mut carry = std::mem::take(&mut self.carry);
            carry.extend_from_slice(bytes);
            joined = carry;
            &joined
        };
        let mut out = String::with_capacity(rest.len());
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.push_str(valid);
                    return out;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(&String::from_utf8_lossy(valid));
                    match e.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            // An incomplete character at the end: wait for the rest.
                            self.carry = after.to_vec();
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// What is left at end of stream (an incomplete character becomes U+FFFD).
    pub(crate) fn finish(&mut self) -> String {
        let carry = std::mem::take(&mut self.carry);
        String::from_utf8_lossy(&carry).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut out = HeadTail::with_limits(5, 5);
        out.push("abc");
        out.push("defgh");
        assert_eq!(out.render(), "abcdefgh");
        assert!(!out.is_empty());
        assert!(HeadTail::default().is_empty());
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let mut out = HeadTail::with_limits(4, 4);
        for i in 0..10 {
            out.push(&format!("{i}\n"));
        }
        // 20 chars: head "0\n1\n", tail "8\n9\n", 12 chars with 6 newlines cut.
        assert_eq!(
            out.render(),
            "0\n1\n\n[... 12 characters (6 lines) omitted from the middle of the output ...]\n8\n9\n"
        );
    }

    #[test]
    fn trimming_is_consistent_with_render() {
        // Enough to force the tail trim several times.
        let mut out = HeadTail::with_limits(3, 2);
        let text: String = (0..10_000).map(|i| format!("{}\n", i % 10)).collect();
        for chunk in text.as_bytes().chunks(7) {
            out.push(std::str::from_utf8(chunk).unwrap_or_default());
        }
        assert_eq!(
            out.render(),
            "0\n1\n[... 19995 characters (9998 lines) omitted from the middle of the output ...]\n9\n"
        );
    }

    #[test]
    fn multibyte_characters_count_as_one() {
        let mut out = HeadTail::with_limits(2, 2);
        out.push("héllo wörld");
        assert_eq!(
            out.render(),
            "hé\n[... 7 characters (0 lines) omitted from the middle of the output ...]\nld"
        );
    }

    #[test]
    fn take_empties_the_capture() {
        let mut out = HeadTail::with_limits(2, 2);
        out.push("abcdef");
        let taken = out.take();
        assert!(out.is_empty());
        assert_eq!(
            taken.render(),
            "ab\n[... 2 characters (0 lines) omitted from the middle of the output ...]\nef"
        );
        out.push("x");
        assert_eq!(out.render(), "x");
    }

    #[test]
    fn decoder_joins_split_characters() {
        let mut d = Utf8Decoder::default();
        let bytes = "aé€b".as_bytes();
        let mut text = String::new();
        for b in bytes {
            text.push_str(&d.decode(std::slice::from_ref(b)));
        }
        text.push_str(&d.finish());
        assert_eq!(text, "aé€b");
        assert_eq!(d.decode(b"x\xffy"), "x\u{fffd}y");
        assert_eq!(d.decode(b"z\xe2\x82"), "z");
        assert_eq!(d.finish(), "\u{fffd}");
    }
}
