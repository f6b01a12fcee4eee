-- The deferred tools an agent has discovered (with ToolSearch, or by calling one):
-- their full schemas are sent with its requests from then on, also after a restart.

CREATE TABLE discovered_tools (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    PRIMARY KEY (session_id, name)
);
