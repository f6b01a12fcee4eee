//! Server-sent events to normalised events: feeds each SSE event of a byte stream to a
//! protocol parser and turns the end of input into success only when the parser saw its
//! terminal event. Chunks may split lines and UTF-8 characters anywhere.

use std::collections::VecDeque;

use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};

use super::error::{ErrorContext, LlmError};
use super::{EventStream, StreamEvent};

/// A wire format's SSE parser: a state machine fed one event at a time.
pub(crate) trait SseParser: Send + 'static {
    /// Handles one SSE event (`event` is `message` when the server sent no name).
    fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError>;

    /// Whether the terminal event was seen; no more input is read after it.
    fn is_done(&self) -> bool;

    /// The byte stream ended before the terminal event: emit what completes the
    /// answer, or fail if it is cut short.
    fn on_eof(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError>;
}

struct State<S> {
    events: S,
    parser: Box<dyn SseParser>,
    /// For a broken transport or undecodable bytes.
    errors: ErrorContext,
    queue: VecDeque<Result<StreamEvent, LlmError>>,
    finished: bool,
}

/// Parses `bytes` (transport errors already rendered as text) with `parser`.
pub(crate) fn parse_stream<B>(
    bytes: B,
    parser: Box<dyn SseParser>,
    errors: ErrorContext,
) -> EventStream
where
    B: Stream<Item = Result<Bytes, String>> + Send + 'static,
{
    let state = State {
        events: Box::pin(bytes.eventsource()),
        parser,
        errors,
        queue: VecDeque::new(),
        finished: false,
    };
    futures_util::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(item) = st.queue.pop_front() {
                return Some((item, st));
            }
            if st.finished {
                return None;
            }
            let mut out = Vec::new();
            let result = match st.events.next().await {
                Some(Ok(ev)) => st.parser.on_event(&ev.event, &ev.data, &mut out),
                Some(Err(e)) => Err(st.errors.stream_error(e.to_string())),
                None => {
                    st.finished = true;
                    st.parser.on_eof(&mut out)
                }
            };
            st.queue.extend(out.into_iter().map(Ok));
            match result {
                Ok(()) => st.finished |= st.parser.is_done(),
                Err(e) => {
                    st.queue.push_back(Err(e));
                    st.finished = true;
                }
            }
        }
    })
    .boxed()
}

/// Test helpers: run a parser over canned chunks.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::llm::ModelResponse;
    use crate::llm::assemble::Assembler;

    /// Splits `text` into chunks at the given byte offsets (which may fall inside a
    /// UTF-8 character or a line).
    pub(crate) fn chunks(text: &str, cuts: &[usize]) -> Vec<Bytes> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            let cut = cut.min(bytes.len());
            if cut > start {
                out.push(Bytes::copy_from_slice(&bytes[start..cut]));
                start = cut;
            }
        }
        out.push(Bytes::copy_from_slice(&bytes[start..]));
        out
    }

    /// Runs `parser` over `chunks` and collects every item.
    pub(crate) async fn run<P: SseParser>(
        parser: P,
        chunks: Vec<Bytes>,
    ) -> Vec<Result<StreamEvent, LlmError>> {
        let input = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, String>));
        let errors = ErrorContext::test("test");
        parse_stream(input, Box::new(parser), errors)
            .collect()
            .await
    }

    /// The response `events` (all successes) assemble into.
    pub(crate) fn assemble(events: Vec<Result<StreamEvent, LlmError>>) -> ModelResponse {
        let mut a = Assembler::default();
        for e in events {
            a.push(e.expect("a stream event"));
        }
        a.finish(&ErrorContext::test("test"), None)
            .expect("a complete response")
    }

    /// Runs `text` split every `step` bytes and checks all splits give the same events.
    pub(crate) async fn run_split<P: SseParser>(
        make: impl Fn() -> P,
        text: &str,
    ) -> Vec<Result<StreamEvent, LlmError>> {
        let whole = run(make(), vec![Bytes::copy_from_slice(text.as_bytes())]).await;
        for step in [1usize, 2, 3, 5, 7, 13] {
            let cuts: Vec<usize> = (1..text.len()).step_by(step).collect();
            let split = run(make(), chunks(text, &cuts)).await;
            assert_eq!(split, whole, "split every {step} bytes differs");
        }
        whole
    }
}
