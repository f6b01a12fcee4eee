-- Sub-agents and the injection inbox.
--
-- A sub-agent is a session of kind 'sub_agent' (its own messages, turns, usage) with a
-- row here saying who started it, as what, and how it ended. Its result reaches its
-- parent once: `notified` turns 1 in the transaction that queues the notification.
--
-- `injections` is the one durable inbox of every agent: texts due before its next
-- model call (task notifications; later mailbox messages, hook corrections, recovery
-- notes). A turn marks them delivered in the transaction that writes them into the
-- context.

CREATE TABLE agents (
    session_id   TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    parent_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    agent_type   TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    background   INTEGER NOT NULL DEFAULT 0,
    spec         TEXT NOT NULL,
    state        TEXT NOT NULL,
    result       TEXT,
    error        TEXT,
    tool_calls   INTEGER NOT NULL DEFAULT 0,
    worktree     TEXT,
    branch       TEXT,
    notified     INTEGER NOT NULL DEFAULT 0,
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER
) STRICT;
CREATE INDEX agents_by_parent ON agents(parent_id, started_at);
CREATE INDEX agents_by_state ON agents(state);

CREATE TABLE injections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'queued',
    turn_id    TEXT,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX injections_queued ON injections(session_id, status, id);
