-- +goose Up
-- The keys of the key ring as the portal has known them (issue 24). Keys themselves live
-- only in the configuration (PORTAL_ENCRYPTION_KEYS); this table keeps their history:
-- when a portal first ran with a key in its ring (its creation date, as far as the portal
-- can know: for keys older than this table, the first start of this version), when one
-- first sealed with it, and when a portal first started without it and found nothing
-- sealed under it. A key known here, not marked removed and missing from a portal's ring
-- makes that portal look for values sealed under it, and refuse to start if it finds any.
CREATE TABLE key_ring (
    key_id       text PRIMARY KEY,
    added_at     timestamptz NOT NULL,
    activated_at timestamptz,
    removed_at   timestamptz
);

-- +goose Down
DROP TABLE key_ring;
