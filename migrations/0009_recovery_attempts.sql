-- Recovery attempts (DESIGN.md §11): how many times each category of failure has been
-- answered in a row for one session, and for which cause (tool and file), so that a
-- daemon restart continues the count. A success clears the session's rows.

CREATE TABLE recovery_attempts (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    category   TEXT NOT NULL,
    cause      TEXT NOT NULL DEFAULT '',
    attempts   INTEGER NOT NULL,
    last_error TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, category)
);
