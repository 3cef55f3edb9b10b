-- +goose Up
-- Lets the hourly prune of old failed sign-ins find them without a full scan.
CREATE INDEX login_failures_created_idx ON login_failures (created_at);

-- +goose Down
DROP INDEX login_failures_created_idx;
