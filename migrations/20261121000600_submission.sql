-- +goose Up
-- The push of a submitted application to the upstream records each step the
-- moment it succeeds, so that a retry (after a crash, a timeout or a transient
-- failure) resumes where the last attempt stopped instead of starting over.
-- upstream_application_id, handoff_link and linked_at already exist.
ALTER TABLE applications
    -- The upstream application exists (its id is in upstream_application_id).
    ADD COLUMN upstream_started_at timestamptz,
    -- The mapped data was PATCHed; cleared by a resubmission, which sends the
    -- corrected data again.
    ADD COLUMN data_sent_at timestamptz,
    -- Every document was uploaded.
    ADD COLUMN documents_sent_at timestamptz,
    -- Submissions so far; each one's push job carries its number, so a job of
    -- an earlier submission that is still finishing never acts on a later one.
    ADD COLUMN submission_count integer NOT NULL DEFAULT 0,
    -- Runs of the push job since the last submission; bounds retries even when
    -- the reconciler starts a fresh job.
    ADD COLUMN push_attempts integer NOT NULL DEFAULT 0,
    -- When the push last started a run, and when it stopped for good (linked,
    -- or handed back to the rep).
    ADD COLUMN push_started_at timestamptz,
    ADD COLUMN push_finished_at timestamptz;

-- The reconciler looks for applications left in submitting.
CREATE INDEX applications_submitting_idx ON applications (updated_at) WHERE status = 'submitting' AND deleted_at IS NULL;

-- The portal's own statuses, so a typo in code cannot store a status the pages
-- and the push do not know.
ALTER TABLE applications ADD CONSTRAINT applications_status_check
    CHECK (status IN ('draft', 'submitting', 'needs_attention', 'linked'));

-- +goose Down
ALTER TABLE applications DROP CONSTRAINT applications_status_check;
DROP INDEX applications_submitting_idx;
ALTER TABLE applications
    DROP COLUMN push_finished_at,
    DROP COLUMN push_started_at,
    DROP COLUMN push_attempts,
    DROP COLUMN submission_count,
    DROP COLUMN documents_sent_at,
    DROP COLUMN data_sent_at,
    DROP COLUMN upstream_started_at;
