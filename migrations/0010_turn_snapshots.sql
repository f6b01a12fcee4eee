-- Rewind (issue 16): the workspace as it was before each turn, as the manifest blob of
-- a snapshot in the shadow store under the data directory (`snapshots/`), with what the
-- snapshot left out (too large, symlinks, ...) so a rewind can say it cannot restore it.

CREATE TABLE turn_snapshots (
    turn_id    TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    root       TEXT NOT NULL,
    manifest   TEXT NOT NULL,
    files      INTEGER NOT NULL,
    skipped    TEXT NOT NULL DEFAULT '[]',
    took_ms    INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX turn_snapshots_by_session ON turn_snapshots(session_id, created_at);
