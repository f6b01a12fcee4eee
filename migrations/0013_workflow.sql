-- Workflow functions (issue 17): skills with state. Per agent (a session: main agents,
-- sub-agents and teammates each have one) and function, the phase the function is in,
-- whether it is in the agent's active set (kept across restarts), where it was activated,
-- the evidence and tools its observers saw, its continuations and a small key-value
-- store; `told` is a digest of what the model was last told of it (phase, body,
-- consumed artifacts), so a change is injected once and no more.

CREATE TABLE workflow_functions (
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name              TEXT NOT NULL,
    phase             TEXT NOT NULL,
    active            INTEGER NOT NULL DEFAULT 1,
    locked            INTEGER NOT NULL DEFAULT 0,
    -- The activation's arguments (JSON: positional, named, raw).
    args              TEXT NOT NULL DEFAULT '{}',
    activated_at      INTEGER NOT NULL,
    activated_message INTEGER NOT NULL,
    iteration         INTEGER NOT NULL,
    evidence          TEXT NOT NULL DEFAULT '[]',
    tools             TEXT NOT NULL DEFAULT '[]',
    continuations     INTEGER NOT NULL DEFAULT 0,
    kv                TEXT NOT NULL DEFAULT '{}',
    told              TEXT,
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (session_id, name)
);

-- Per agent: its model calls and its genuine user messages so far (what a function's
-- `turn_count` and `user_approval` are measured against), and the message number the
-- current turn delivered (0: none).
CREATE TABLE workflow_agents (
    session_id    TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    iteration     INTEGER NOT NULL DEFAULT 0,
    user_messages INTEGER NOT NULL DEFAULT 0,
    turn_message  INTEGER NOT NULL DEFAULT 0
);

-- Artifacts a function produced, per session: the file under the data directory holds
-- the text; the row says when and by whom it was captured.
CREATE TABLE workflow_artifacts (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    function    TEXT,
    bytes       INTEGER NOT NULL,
    digest      TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, name)
);

-- `|loop|` (issue 17): rounds of background workers for one task. A loop belongs to the
-- agent that started it (`session_id`, its origin) and counts against its root session
-- (at most 30 live loops per root). `phase`: running, complete, stalled, stopped,
-- failed. Each round is a background sub-agent of the origin, recorded before it is
-- started (`agent_id` set once it exists), so a round is never run twice: a round the
-- daemon lost before its worker started is `interrupted`, reported at the origin's next
-- message, and the loop goes on with the next round.
CREATE TABLE workflow_loops (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    root_id     TEXT NOT NULL,
    task        TEXT NOT NULL,
    objective   TEXT,
    mode        TEXT NOT NULL,
    rounds      INTEGER NOT NULL,
    phase       TEXT NOT NULL,
    reason      TEXT,
    -- The loop's end was reported to its origin (once, whichever path ends it).
    reported    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX workflow_loops_session ON workflow_loops (session_id, phase);
-- One running loop per origin, whatever two clients send at once.
CREATE UNIQUE INDEX workflow_loops_one_running ON workflow_loops (session_id)
    WHERE phase = 'running';
CREATE INDEX workflow_loops_root ON workflow_loops (root_id, phase);

CREATE TABLE workflow_loop_rounds (
    loop_id     TEXT NOT NULL REFERENCES workflow_loops(id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    agent_id    TEXT,
    -- starting, running, completed, failed, interrupted, stopped
    state       TEXT NOT NULL,
    summary     TEXT,
    summary_hash TEXT,
    workspace   TEXT,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    PRIMARY KEY (loop_id, round)
);
CREATE INDEX workflow_loop_rounds_agent ON workflow_loop_rounds (agent_id);

-- A collaboration graph (issue 17) per orchestrating session: the graph as it was
-- parsed when the workflow started (`graph`, JSON, so an edit of the config does not
-- change a running workflow), its state (`state`, JSON: frontier, completed, loop
-- counters, last results, status, reason), and what the orchestrator was last told.
-- Which agent a dispatch started is in `agents` (its type is the graph's node).
CREATE TABLE workflow_graphs (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    graph       TEXT NOT NULL,
    state       TEXT NOT NULL,
    status      TEXT NOT NULL,
    told        TEXT,
    updated_at  INTEGER NOT NULL
);

-- The dispatches a graph counted, so a completion advances it once: the agent, its
-- node, and whether it was on the graph's route when it was dispatched.
CREATE TABLE workflow_graph_dispatches (
    agent_id    TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    node        TEXT NOT NULL,
    on_route    INTEGER NOT NULL,
    completed   INTEGER NOT NULL DEFAULT 0
);
