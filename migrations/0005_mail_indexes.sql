-- Indexes for the mailbox reads that are not by recipient:
-- `Store::last_sent` (a teammate's newest answer of a kind: the shutdown handshake,
-- read at every run's end) and `Store::request_mail` (a request and its answers).
-- Without them each read scans the whole mailbox, which grows with every message.

CREATE INDEX mailbox_by_sender ON mailbox(sender, kind, id);
CREATE INDEX mailbox_by_request ON mailbox(team_id, request_id);
