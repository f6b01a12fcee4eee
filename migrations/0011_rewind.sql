-- Rewind (issue 16): per turn also the workspace as the turn left it (`after_manifest`,
-- so a file changed since by someone else is told apart from the turn's own changes),
-- the conversation as it was before the turn (`conversation`, a blob listing one blob
-- per message), and when a rewind undid the turn (`rewound_at`).

ALTER TABLE turn_snapshots ADD COLUMN after_manifest TEXT;
ALTER TABLE turn_snapshots ADD COLUMN conversation TEXT;
ALTER TABLE turn_snapshots ADD COLUMN rewound_at INTEGER;
