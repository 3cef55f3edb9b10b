-- +goose Up
-- The alert signals (issue 24) count the outbox's undelivered messages and age the
-- oldest pending one; this index keeps that read to the undelivered rows, however long
-- the outbox's history grows.
CREATE INDEX mail_outbox_undelivered_idx ON mail_outbox (status, created_at)
    WHERE status IN ('pending', 'failed', 'held');

-- +goose Down
DROP INDEX mail_outbox_undelivered_idx;
