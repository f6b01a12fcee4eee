-- RooCode's store: sessions, their event log (what clients replay), their model
-- context (what the provider sees; compaction rewrites it), turns, queued inputs,
-- model calls and requests waiting for a human.

CREATE TABLE sessions (
    id                TEXT PRIMARY KEY,
    parent_session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    kind              TEXT NOT NULL DEFAULT 'main',
    title             TEXT NOT NULL DEFAULT '',
    cwd               TEXT NOT NULL,
    root              TEXT NOT NULL,
    model             TEXT NOT NULL,
    mode              TEXT NOT NULL DEFAULT 'default',
    status            TEXT NOT NULL DEFAULT 'idle',
    running_turn_id   TEXT,
    created_at        INTEGER NOT NULL,
    last_activity     INTEGER NOT NULL,
    last_seq          INTEGER NOT NULL DEFAULT 0,
    input_tokens      INTEGER NOT NULL DEFAULT 0,
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd          REAL,
    cost_unknown      INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX sessions_by_root ON sessions(root, last_activity DESC);
CREATE INDEX sessions_by_activity ON sessions(last_activity DESC);

CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    ts         TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    content    TEXT NOT NULL,
    turn_id    TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE turns (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    state       TEXT NOT NULL,
    stop_reason TEXT,
    error       TEXT,
    iterations  INTEGER NOT NULL DEFAULT 0,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER
) STRICT;
CREATE INDEX turns_by_session ON turns(session_id, started_at);

CREATE TABLE inputs (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    status     TEXT NOT NULL,
    turn_id    TEXT,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX inputs_queued ON inputs(session_id, status, created_at);

CREATE TABLE model_calls (
    id                 TEXT PRIMARY KEY,
    session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id            TEXT NOT NULL,
    agent_id           TEXT NOT NULL,
    model              TEXT NOT NULL,
    request_bytes      INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd           REAL,
    latency_ms         INTEGER NOT NULL,
    stop_reason        TEXT,
    attempts           INTEGER NOT NULL,
    error              TEXT,
    created_at         INTEGER NOT NULL
) STRICT;
CREATE INDEX model_calls_by_session ON model_calls(session_id, created_at);

CREATE TABLE pending_requests (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    call_id    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    summary    TEXT NOT NULL,
    payload    TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'waiting',
    decision   TEXT,
    created_at INTEGER NOT NULL,
    resolved_at INTEGER
) STRICT;
CREATE INDEX pending_waiting ON pending_requests(status, created_at);

-- Process groups of running commands, so a daemon restarting after a crash kills
-- what its predecessor left running (only groups of the same boot).
CREATE TABLE process_groups (
    pgid       INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    command    TEXT NOT NULL,
    boot_id    TEXT NOT NULL,
    started_at INTEGER NOT NULL
) STRICT;
