-- What a slash command sets for the turn its message runs in (tools narrowed, rules
-- pre-approved, a model), as JSON; NULL for a plain message.

ALTER TABLE inputs ADD COLUMN scope TEXT;
