-- +goose Up
-- Partner webhooks (internal/webhooks). An admin registers an endpoint for an API key:
-- it receives the events it chose, within the key's scope (a rep-scoped key's endpoint
-- hears only about that rep's applications and merchants). Each endpoint signs with its
-- own secret, sealed with the key ring; after a rotation the replaced secret signs
-- beside the new one until previous_until.
CREATE TABLE webhook_endpoints (
    id                     uuid PRIMARY KEY,
    api_key_id             uuid NOT NULL REFERENCES api_keys (id),
    url                    text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    description            text NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    events                 text[] NOT NULL CHECK (cardinality(events) > 0),
    -- fieldcrypt, AAD webhook_endpoints/<id>/secret and .../previous_secret.
    secret_sealed          text NOT NULL,
    previous_secret_sealed text,
    previous_until         timestamptz,
    -- An endpoint is disabled by an admin (disabled_by), or by the portal after its
    -- deliveries failed for three days (disabled_by NULL).
    disabled_at            timestamptz,
    disabled_by            uuid REFERENCES users (id),
    -- When the first of the endpoint's current run of failed attempts happened; NULL
    -- once an attempt succeeds.
    failing_since          timestamptz,
    created_by             uuid NOT NULL REFERENCES users (id),
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    CONSTRAINT webhook_endpoints_previous CHECK ((previous_secret_sealed IS NULL) = (previous_until IS NULL)),
    CONSTRAINT webhook_endpoints_disabled CHECK (disabled_by IS NULL OR disabled_at IS NOT NULL)
);
CREATE INDEX webhook_endpoints_key_idx ON webhook_endpoints (api_key_id);

-- The version of each object partners hear about: one more with each event about it, in
-- the transaction of the change, so a receiver can drop news older than what it has.
CREATE TABLE webhook_object_versions (
    object_kind text NOT NULL,
    object_id   uuid NOT NULL,
    version     bigint NOT NULL,
    PRIMARY KEY (object_kind, object_id)
);

-- The outbox: an event is written in the transaction of the change it announces, with a
-- delivery per endpoint it goes to and a River job per delivery. body is the exact JSON
-- signed and sent on every attempt; it holds no personal data.
CREATE TABLE webhook_events (
    id             uuid PRIMARY KEY,
    type           text NOT NULL,
    object_kind    text NOT NULL,
    object_id      uuid NOT NULL,
    object_version bigint NOT NULL,
    body           text NOT NULL,
    created_at     timestamptz NOT NULL
);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);
CREATE INDEX webhook_events_object_idx ON webhook_events (object_id, type);

CREATE TABLE webhook_deliveries (
    id               uuid PRIMARY KEY,
    event_id         uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    status           text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       text NOT NULL DEFAULT '',
    next_attempt_at  timestamptz,
    delivered_at     timestamptz,
    created_at       timestamptz NOT NULL,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- Every attempt of a delivery: when, how long the receiver took, its status code (NULL
-- when it did not answer) and what went wrong in words; never the answer's body.
CREATE TABLE webhook_attempts (
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number      integer NOT NULL,
    started_at  timestamptz NOT NULL,
    duration_ms integer NOT NULL,
    status_code integer,
    error       text NOT NULL DEFAULT '',
    PRIMARY KEY (delivery_id, number)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_object_versions;
DROP TABLE webhook_endpoints;
