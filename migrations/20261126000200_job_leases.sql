-- +goose Up
-- A lease is held by the run of a background job while it works, renewed every few
-- seconds (internal/jobs/lease.go). Its key names what the run must have to itself: a
-- job, or for an application's push the application, so that two runs never push one
-- application at the same time. A run that stops renewing (its process was killed) lets
-- the lease expire, and any instance's sweeper then hands its job back to the queue.
CREATE TABLE job_leases (
    key        text PRIMARY KEY,
    job_id     bigint NOT NULL,
    attempt    integer NOT NULL,
    holder     uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    -- The run ended and gave the lease back; the row stays a while so the sweeper can
    -- tell a finished run whose job is not yet marked completed from a dead one.
    released   boolean NOT NULL DEFAULT false
);
CREATE INDEX job_leases_job_idx ON job_leases (job_id, attempt);

-- +goose Down
DROP TABLE job_leases;
