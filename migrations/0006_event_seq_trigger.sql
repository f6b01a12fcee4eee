-- Inserting an event advances its session's `last_seq` and `last_activity` itself, so
-- appending events is one statement (one commit, one hand-off to the database's
-- thread) instead of a transaction of an insert and an update. Events are inserted in
-- seq order, so the last row inserted carries the session's newest seq.

CREATE TRIGGER events_advance_session AFTER INSERT ON events
BEGIN
    UPDATE sessions
       SET last_seq = NEW.seq,
           last_activity = CAST(unixepoch('subsec') * 1000 AS INTEGER)
     WHERE id = NEW.session_id;
END;
