-- +goose Up
-- A keyed blind index of each application's TIN (an HMAC of its digits under a key
-- derived from the key ring, "<key id>:<base64url>"), so that duplicates are found by
-- TIN without decrypting anything. NULL means not computed yet: a background job
-- fills it in for existing applications (and rewrites it after a key rotation); an
-- application without a TIN has ''.
ALTER TABLE applications ADD COLUMN tin_index text;
CREATE INDEX applications_tin_index_idx ON applications (tin_index) WHERE deleted_at IS NULL;
CREATE INDEX applications_tin_index_missing_idx ON applications (id) WHERE tin_index IS NULL;

-- Duplicates are also found by legal name, compared without case and runs of spaces.
CREATE INDEX applications_legal_name_key_idx ON applications (lower(btrim(regexp_replace(legal_name, '\s+', ' ', 'g'))))
    WHERE deleted_at IS NULL AND legal_name <> '';

-- +goose Down
DROP INDEX applications_legal_name_key_idx;
DROP INDEX applications_tin_index_missing_idx;
DROP INDEX applications_tin_index_idx;
ALTER TABLE applications DROP COLUMN tin_index;
