-- +goose Up
-- The dashboard's status filter names an outcome of the state table (internal/states),
-- which tests the processor's state beside the portal's: upstream_status joins the
-- columns the list's indexes INCLUDE, so that matching rows are still found with an
-- index-only scan (see 20261121000300_application_list.sql and BENCHMARKS.md). Each
-- index is built beside the old one and then swapped in. The migration runs in one
-- transaction under the migration lock, so writes to applications wait while it builds
-- (about a second per 100,000 applications on the benchmark machine); plain CREATE INDEX
-- rather than CONCURRENTLY, which cannot run beside a second instance waiting for the
-- migration lock.
CREATE INDEX applications_updated_idx_next ON applications (updated_at DESC, id)
    INCLUDE (created_at, status, owner_id, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_updated_idx;
ALTER INDEX applications_updated_idx_next RENAME TO applications_updated_idx;

CREATE INDEX applications_owner_updated_idx_next ON applications (owner_id, updated_at DESC, id)
    INCLUDE (created_at, status, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_updated_idx;
ALTER INDEX applications_owner_updated_idx_next RENAME TO applications_owner_updated_idx;

CREATE INDEX applications_status_idx_next ON applications (status, updated_at DESC, id)
    INCLUDE (created_at, owner_id, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_status_idx;
ALTER INDEX applications_status_idx_next RENAME TO applications_status_idx;

CREATE INDEX applications_created_idx_next ON applications (created_at DESC, id)
    INCLUDE (updated_at, status, owner_id, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_created_idx;
ALTER INDEX applications_created_idx_next RENAME TO applications_created_idx;

CREATE INDEX applications_owner_created_idx_next ON applications (owner_id, created_at DESC, id)
    INCLUDE (updated_at, status, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_created_idx;
ALTER INDEX applications_owner_created_idx_next RENAME TO applications_owner_created_idx;

CREATE INDEX applications_name_idx_next ON applications (sort_name, id)
    INCLUDE (created_at, updated_at, status, owner_id, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_name_idx;
ALTER INDEX applications_name_idx_next RENAME TO applications_name_idx;

CREATE INDEX applications_owner_name_idx_next ON applications (owner_id, sort_name, id)
    INCLUDE (created_at, updated_at, status, upstream_status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_name_idx;
ALTER INDEX applications_owner_name_idx_next RENAME TO applications_owner_name_idx;

-- +goose Down
CREATE INDEX applications_updated_idx_next ON applications (updated_at DESC, id)
    INCLUDE (created_at, status, owner_id) WHERE deleted_at IS NULL;
DROP INDEX applications_updated_idx;
ALTER INDEX applications_updated_idx_next RENAME TO applications_updated_idx;

CREATE INDEX applications_owner_updated_idx_next ON applications (owner_id, updated_at DESC, id)
    INCLUDE (created_at, status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_updated_idx;
ALTER INDEX applications_owner_updated_idx_next RENAME TO applications_owner_updated_idx;

CREATE INDEX applications_status_idx_next ON applications (status, updated_at DESC, id)
    INCLUDE (created_at, owner_id) WHERE deleted_at IS NULL;
DROP INDEX applications_status_idx;
ALTER INDEX applications_status_idx_next RENAME TO applications_status_idx;

CREATE INDEX applications_created_idx_next ON applications (created_at DESC, id)
    INCLUDE (updated_at, status, owner_id) WHERE deleted_at IS NULL;
DROP INDEX applications_created_idx;
ALTER INDEX applications_created_idx_next RENAME TO applications_created_idx;

CREATE INDEX applications_owner_created_idx_next ON applications (owner_id, created_at DESC, id)
    INCLUDE (updated_at, status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_created_idx;
ALTER INDEX applications_owner_created_idx_next RENAME TO applications_owner_created_idx;

CREATE INDEX applications_name_idx_next ON applications (sort_name, id)
    INCLUDE (created_at, updated_at, status, owner_id) WHERE deleted_at IS NULL;
DROP INDEX applications_name_idx;
ALTER INDEX applications_name_idx_next RENAME TO applications_name_idx;

CREATE INDEX applications_owner_name_idx_next ON applications (owner_id, sort_name, id)
    INCLUDE (created_at, updated_at, status) WHERE deleted_at IS NULL;
DROP INDEX applications_owner_name_idx;
ALTER INDEX applications_owner_name_idx_next RENAME TO applications_owner_name_idx;
