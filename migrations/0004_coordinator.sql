-- Coordinator mode per session (`/coordinator on|off`): NULL follows the project's
-- `coordinator:` setting; 1 or 0 is the user's choice for this session, which wins.
-- A coordinator keeps only its team, task, message and agent tools (no code tools).

ALTER TABLE sessions ADD COLUMN coordinator INTEGER;
