-- +goose Up
-- Work a portal does once per database (issue 27), such as sealing the secret links
-- stored in the clear before links were sealed. It used to run at every start, each
-- time a full read of applications and mail_outbox (160-270 ms at 100,000
-- applications); now a job does it once and records it here, and a start reads only
-- this table (jobs.ScheduleOneTimeTasks).
CREATE TABLE one_time_tasks (
    name    text PRIMARY KEY,
    done_at timestamptz NOT NULL,
    -- How many rows the task changed, for the record.
    changed integer NOT NULL DEFAULT 0
);

-- A database with nothing to seal (every new one, and every one whose links were
-- sealed by an earlier start) has both done already: no job, no read at a later start.
-- The conditions are those of applications.Store.SealLegacyLinks and
-- mail.Outbox.SealLegacyLinks.
INSERT INTO one_time_tasks (name, done_at)
SELECT 'seal_legacy_handoff_links', now()
WHERE NOT EXISTS (SELECT 1 FROM applications
    WHERE handoff_link IS NOT NULL AND handoff_link <> '' AND handoff_link NOT LIKE 'v1.%');
INSERT INTO one_time_tasks (name, done_at)
SELECT 'seal_legacy_outbox_links', now()
WHERE NOT EXISTS (SELECT 1 FROM mail_outbox
    WHERE secret_link IS NULL AND (text_body LIKE '%/l/%' OR text_body LIKE '%/invite/%'));

-- +goose Down
DROP TABLE one_time_tasks;
