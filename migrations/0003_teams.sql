-- Agent teams: a lead session's team, its members (each an agent session), the team's
-- shared task list with dependencies, and the mailboxes teammates write to.
--
-- The mailbox table is the one source of truth for messages: sending is one
-- transaction (a broadcast writes one row per recipient), and a recipient's turn marks
-- its unread rows read in the transaction that writes them into its context.

CREATE TABLE teams (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    lead_session_id TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
    description     TEXT NOT NULL DEFAULT '',
    isolation       TEXT NOT NULL DEFAULT 'none',
    created_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE team_members (
    team_id            TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    agent_id           TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
    agent_type         TEXT NOT NULL,
    model              TEXT NOT NULL,
    worktree           TEXT,
    backend            TEXT NOT NULL DEFAULT 'in-process',
    state              TEXT NOT NULL DEFAULT 'active',
    plan_mode_required INTEGER NOT NULL DEFAULT 0,
    joined_at          INTEGER NOT NULL,
    PRIMARY KEY (team_id, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE team_tasks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id     TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    subject     TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'pending',
    owner       TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX team_tasks_by_team ON team_tasks(team_id, id);

-- `task_id` cannot start before `blocked_by` is completed.
CREATE TABLE team_task_deps (
    task_id    INTEGER NOT NULL REFERENCES team_tasks(id) ON DELETE CASCADE,
    blocked_by INTEGER NOT NULL REFERENCES team_tasks(id) ON DELETE CASCADE,
    PRIMARY KEY (task_id, blocked_by)
) STRICT, WITHOUT ROWID;

CREATE TABLE mailbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id    TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    sender     TEXT NOT NULL,
    recipient  TEXT NOT NULL,
    kind       TEXT NOT NULL,
    summary    TEXT NOT NULL DEFAULT '',
    body       TEXT NOT NULL,
    request_id TEXT,
    approve    INTEGER,
    created_at INTEGER NOT NULL,
    read_at    INTEGER,
    turn_id    TEXT
) STRICT;
CREATE INDEX mailbox_unread ON mailbox(recipient, read_at, id);
