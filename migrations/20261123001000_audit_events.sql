-- +goose Up
-- The audit trail records events about any subject (an application today; merchants,
-- users and transactions as their rooms arrive), so application_events becomes
-- audit_events with a subject kind and id. Existing rows keep their ids and become the
-- entries of their application. The reference to applications goes: a subject of
-- another kind has no row there.
ALTER TABLE application_events RENAME TO audit_events;
ALTER TABLE audit_events RENAME COLUMN application_id TO subject_id;
ALTER TABLE audit_events DROP CONSTRAINT application_events_application_id_fkey;
ALTER TABLE audit_events ADD COLUMN subject_kind text NOT NULL DEFAULT 'application';
ALTER TABLE audit_events ALTER COLUMN subject_kind DROP DEFAULT;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_subject_kind_check
    CHECK (subject_kind IN ('application', 'merchant', 'user', 'transaction'));
ALTER SEQUENCE application_events_id_seq RENAME TO audit_events_id_seq;
ALTER INDEX application_events_pkey RENAME TO audit_events_pkey;
DROP INDEX application_events_app_idx;
CREATE INDEX audit_events_subject_idx ON audit_events (subject_kind, subject_id, created_at);

-- +goose Down
DELETE FROM audit_events WHERE subject_kind <> 'application';
DROP INDEX audit_events_subject_idx;
ALTER TABLE audit_events DROP CONSTRAINT audit_events_subject_kind_check;
ALTER TABLE audit_events DROP COLUMN subject_kind;
ALTER INDEX audit_events_pkey RENAME TO application_events_pkey;
ALTER SEQUENCE audit_events_id_seq RENAME TO application_events_id_seq;
ALTER TABLE audit_events RENAME COLUMN subject_id TO application_id;
ALTER TABLE audit_events ADD CONSTRAINT application_events_application_id_fkey
    FOREIGN KEY (application_id) REFERENCES applications (id);
ALTER TABLE audit_events RENAME TO application_events;
CREATE INDEX application_events_app_idx ON application_events (application_id, created_at);
