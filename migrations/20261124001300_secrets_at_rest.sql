-- +goose Up
-- Issue 13: nothing readable at rest.
--
-- Documents are encrypted in storage (age, a file key per object wrapped by the key ring);
-- encrypted_key_id is the ring key a start-up pass found an object under, NULL until it
-- has checked (and, for objects stored before encryption, rewritten) it.
ALTER TABLE documents ADD COLUMN encrypted_key_id text;
CREATE INDEX documents_encryption_idx ON documents (id) WHERE encrypted_key_id IS NULL;

-- The merchant's tracked links (/l/<token>) are kept only as the SHA-256 of their token,
-- one per e-mail that carried one, each working until it expires. The tokens stored so far
-- move here as hashes, valid 90 days from their link; the hand-off links themselves are
-- sealed with the key ring by the portal on start-up (it holds the keys, SQL does not).
CREATE TABLE handoff_open_tokens (
    token_hash     text PRIMARY KEY,
    application_id uuid NOT NULL REFERENCES applications (id),
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL
);
CREATE INDEX handoff_open_tokens_app_idx ON handoff_open_tokens (application_id);
INSERT INTO handoff_open_tokens (token_hash, application_id, created_at, expires_at)
SELECT encode(sha256(convert_to(open_token, 'UTF8')), 'hex'), id, coalesce(linked_at, now()),
       coalesce(linked_at, now()) + interval '90 days'
FROM applications WHERE open_token IS NOT NULL;
UPDATE applications SET open_token = NULL WHERE open_token IS NOT NULL;

-- An outbox message's secret link (a tracked link, an invitation) is kept sealed with the
-- key ring, apart from its bodies, which hold a placeholder in its place.
ALTER TABLE mail_outbox ADD COLUMN secret_link text;

-- An admin's view of a held message's link is audited, with the message as its subject.
ALTER TABLE audit_events DROP CONSTRAINT audit_events_subject_kind_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_subject_kind_check
    CHECK (subject_kind IN ('application', 'merchant', 'user', 'transaction', 'message'));

-- +goose Down
DELETE FROM audit_events WHERE subject_kind = 'message';
ALTER TABLE audit_events DROP CONSTRAINT audit_events_subject_kind_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_subject_kind_check
    CHECK (subject_kind IN ('application', 'merchant', 'user', 'transaction'));
ALTER TABLE mail_outbox DROP COLUMN secret_link;
-- Hashed tokens cannot be turned back: links e-mailed so far stop working.
DROP TABLE handoff_open_tokens;
DROP INDEX documents_encryption_idx;
ALTER TABLE documents DROP COLUMN encrypted_key_id;
