-- +goose Up
-- Issue 13: nothing readable at rest.
--
-- Documents are encrypted in storage (age, a file key per object wrapped by the key ring);
-- encrypted_key_id is the ring key a start-up pass found an object under, NULL until it
-- has checked (and, for objects stored before encryption, rewritten) it.
ALTER TABLE documents ADD COLUMN encrypted_key_id text;
CREATE INDEX documents_encryption_idx ON documents (id) WHERE encrypted_key_id IS NULL;

-- +goose Down
DROP INDEX documents_encryption_idx;
ALTER TABLE documents DROP COLUMN encrypted_key_id;
