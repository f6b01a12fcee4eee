-- The flight recorder (issue 16): per model call also its iteration in the turn, the
-- time to the stream's first event, the request's size split by part (JSON, see
-- `trace::parts`) and its purpose; per tool call who decided it may run (JSON, see
-- `permission::DecidedBy`), who answered when a human was asked, how long it ran and
-- how it ended; and the request and response bodies, scrubbed of secrets, capped per
-- session (`trace.max_body_mb`).

ALTER TABLE model_calls ADD COLUMN iteration INTEGER;
ALTER TABLE model_calls ADD COLUMN ttft_ms INTEGER;
ALTER TABLE model_calls ADD COLUMN parts TEXT;
-- What the call was for: `conversation` (the loop's own), `summarize` (recovery's
-- note of where the task stands), `compaction`, `tool:WebFetch`; replay serves each
-- purpose its own recorded answers.
ALTER TABLE model_calls ADD COLUMN purpose TEXT;

CREATE TABLE tool_calls (
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    call_id       TEXT NOT NULL,
    turn_id       TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    model_call_id TEXT,
    tool          TEXT NOT NULL,
    input         TEXT NOT NULL,
    decision      TEXT NOT NULL,
    decided_by    TEXT NOT NULL,
    answered_by   TEXT,
    outcome       TEXT NOT NULL,
    error         TEXT,
    started_at    INTEGER NOT NULL,
    duration_ms   INTEGER NOT NULL,
    PRIMARY KEY (session_id, call_id)
) STRICT;
CREATE INDEX tool_calls_by_turn ON tool_calls(session_id, turn_id, started_at);

-- A request is kept as a skeleton (`request`) naming its parts — its system prompt,
-- its tools, each message — by hash (`{"$part": h}`); the parts are kept once per
-- session by content (`trace_parts`), since every request resends them
-- (`trace::bodies`). `bytes` is the skeleton's and the response's size; the small
-- columns come first, and the index covers what the cap reads.
CREATE TABLE trace_bodies (
    model_call_id TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    bytes         INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    request       TEXT NOT NULL,
    response      TEXT NOT NULL
) STRICT;
CREATE INDEX trace_bodies_by_session ON trace_bodies(session_id, created_at, bytes);

CREATE TABLE trace_parts (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    hash       TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    text       TEXT NOT NULL,
    PRIMARY KEY (session_id, hash)
) STRICT;
