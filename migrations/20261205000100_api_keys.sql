-- +goose Up
-- Keys of the partner API (/api/v1). A key acts as one sales rep (scope 'rep') or for
-- the whole reseller (scope 'reseller'), read-only or read-write. The secret is shown
-- once; only its SHA-256 is kept: the secret is 256 random bits, so a fast hash is as
-- good as a slow one and lets every request find its key by an index lookup.
CREATE TABLE api_keys (
    id            uuid PRIMARY KEY,
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    -- The public part of the key ("ppk_4f7q2m9x"), shown in lists and logs.
    prefix        text NOT NULL UNIQUE CHECK (length(prefix) <= 40),
    secret_sha256 bytea NOT NULL UNIQUE CHECK (length(secret_sha256) = 32),
    scope         text NOT NULL CHECK (scope IN ('rep', 'reseller')),
    rep_user_id   uuid REFERENCES users (id),
    access        text NOT NULL CHECK (access IN ('read', 'write')),
    created_by    uuid NOT NULL REFERENCES users (id),
    created_at    timestamptz NOT NULL,
    last_used_at  timestamptz,
    revoked_at    timestamptz,
    revoked_by    uuid REFERENCES users (id),
    CONSTRAINT api_keys_rep_scope CHECK ((scope = 'rep') = (rep_user_id IS NOT NULL)),
    CONSTRAINT api_keys_revoked CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE INDEX api_keys_created_idx ON api_keys (created_at DESC);
CREATE INDEX api_keys_rep_idx ON api_keys (rep_user_id) WHERE rep_user_id IS NOT NULL;

-- +goose Down
DROP TABLE api_keys;
