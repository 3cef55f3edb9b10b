-- +goose Up
-- The dashboard's search finds applications by the start of the words of their DBA, legal
-- name, contact name and contact e-mail, and by their business and contact phone numbers,
-- instead of any substring of the first four. A substring search needed the trigram index,
-- whose candidates PostgreSQL had to check again row by row (the rows are wide: the draft is
-- about 2 kB), and that check cost each search several times a page (see BENCHMARKS.md).
-- An index of whole words answers exactly, without the check.
--
-- search_words holds those words in lower case, split at every ASCII character that is
-- neither a letter, a digit nor "_" (so "jane.doe@mail.example" gives jane, doe, mail and
-- example); letters beyond ASCII stay in their words. Phone numbers are kept as their
-- digits, the last ten digits (without a country code 1) and the last seven (without the
-- area code). internal/dashboard/search.go splits a search term by the same rule: keep the
-- two in step. array_to_tsvector takes the words as they are, with no parser or dictionary
-- between, so nothing of a language's rules (stemming, stop words) applies.
--
-- Only the first 400 characters of the four fields together are split (almost always all
-- of them: a DBA, legal name, contact and e-mail take about 90), so that search_words stays
-- well within what a B-tree index entry may hold (2,704 bytes) whatever the characters.
--
-- A GIN index finds the matches of rare words; it leads with owner_id (btree_gin) so that a
-- rep's search is answered inside it. The dashboard's default order (most recently updated)
-- finds the page of a common word along its index instead: those two indexes now INCLUDE
-- search_words, so that PostgreSQL tests the words in the index entries (an index-only
-- scan) rather than reading each row from the table. Adding the stored column rewrites the
-- table and two indexes are built again, and writes to applications wait meanwhile (under
-- a minute per 100,000 applications on the 2-core benchmark machine).
CREATE EXTENSION IF NOT EXISTS btree_gin;

ALTER TABLE applications ADD COLUMN search_words tsvector GENERATED ALWAYS AS (
    array_to_tsvector(array_remove(
        regexp_split_to_array(left(lower(dba || ' ' || legal_name || ' ' || contact_name || ' ' || contact_email), 400),
            '[^0-9a-z_\u0080-\U0010ffff]+')
        || ARRAY[
            regexp_replace(COALESCE(draft->'business'->>'phone', ''), '[^0-9]', '', 'g'),
            right(regexp_replace(COALESCE(draft->'business'->>'phone', ''), '[^0-9]', '', 'g'), 10),
            right(regexp_replace(COALESCE(draft->'business'->>'phone', ''), '[^0-9]', '', 'g'), 7),
            regexp_replace(COALESCE(draft->'contact'->>'phone', ''), '[^0-9]', '', 'g'),
            right(regexp_replace(COALESCE(draft->'contact'->>'phone', ''), '[^0-9]', '', 'g'), 10),
            right(regexp_replace(COALESCE(draft->'contact'->>'phone', ''), '[^0-9]', '', 'g'), 7)],
        ''))) STORED;

CREATE INDEX applications_search_words_idx ON applications USING gin (owner_id, search_words)
    WHERE deleted_at IS NULL;

CREATE INDEX applications_updated_idx_next ON applications (updated_at DESC, id)
    INCLUDE (created_at, status, owner_id, upstream_status, search_words) WHERE deleted_at IS NULL;
DROP INDEX applications_updated_idx;
ALTER INDEX applications_updated_idx_next RENAME TO applications_updated_idx;

CREATE INDEX applications_owner_updated_idx_next ON applications (owner_id, updated_at DESC, id)
    INCLUDE (created_at, status, upstream_status, search_words) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_updated_idx;
ALTER INDEX applications_owner_updated_idx_next RENAME TO applications_owner_updated_idx;

-- The substring search's column and its trigram index go (the index with the column).
ALTER TABLE applications DROP COLUMN search_text;

-- +goose Down
ALTER TABLE applications ADD COLUMN search_text text
    GENERATED ALWAYS AS (lower(dba || ' ' || legal_name || ' ' || contact_name || ' ' || contact_email)) STORED;
CREATE INDEX applications_search_idx ON applications USING gin (search_text gin_trgm_ops);
CREATE INDEX applications_updated_idx_next ON applications (updated_at DESC, id)
    INCLUDE (created_at, status, owner_id, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_updated_idx;
ALTER INDEX applications_updated_idx_next RENAME TO applications_updated_idx;
CREATE INDEX applications_owner_updated_idx_next ON applications (owner_id, updated_at DESC, id)
    INCLUDE (created_at, status, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_updated_idx;
ALTER INDEX applications_owner_updated_idx_next RENAME TO applications_owner_updated_idx;
DROP INDEX applications_search_words_idx;
ALTER TABLE applications DROP COLUMN search_words;
