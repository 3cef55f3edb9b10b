-- +goose Up
-- The alert signals (issue 24) count and age what an operator pages on: applications
-- waiting for their push, payments and terminal transactions whose outcome is unknown,
-- messages not delivered. These partial indexes keep each read to those rows (the oldest
-- one is the index's first entry), however long the tables' history grows.
CREATE INDEX applications_unlinked_idx ON applications (submitted_at)
    WHERE status = 'submitting' AND deleted_at IS NULL;
CREATE INDEX ledger_transactions_checking_idx ON ledger_transactions (created_at)
    WHERE status = 'checking';
CREATE INDEX terminal_launches_unknown_idx ON terminal_launches (created_at)
    WHERE state = 'unknown';
CREATE INDEX mail_outbox_undelivered_idx ON mail_outbox (status, created_at)
    WHERE status IN ('pending', 'failed', 'held');

-- +goose Down
DROP INDEX mail_outbox_undelivered_idx;
DROP INDEX terminal_launches_unknown_idx;
DROP INDEX ledger_transactions_checking_idx;
DROP INDEX applications_unlinked_idx;
