-- +goose Up
-- What the partner API keeps about requests, in Postgres so that every replica agrees.
--
-- Rate limits: requests per key per one-minute window.
CREATE TABLE api_rate_windows (
    key_id       uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    window_start timestamptz NOT NULL,
    requests     integer NOT NULL,
    PRIMARY KEY (key_id, window_start)
);

-- Idempotency keys of POST requests: the first request's hash and, once answered, its
-- answer (the body sealed with the key ring: answers hold personal data), replayed for
-- 24 hours to a retry with the same key and body.
CREATE TABLE api_idempotency (
    key_id          uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    request_sha256  bytea NOT NULL CHECK (length(request_sha256) = 32),
    state           text NOT NULL CHECK (state IN ('in_flight', 'done')),
    -- An in-flight request whose process died is taken over by a retry after this.
    lease_until     timestamptz NOT NULL,
    status          integer,
    headers         jsonb,
    body            text,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (key_id, idempotency_key),
    CONSTRAINT api_idempotency_answer CHECK ((state = 'done') = (status IS NOT NULL))
);
CREATE INDEX api_idempotency_expires_idx ON api_idempotency (expires_at);

-- +goose Down
DROP TABLE api_idempotency;
DROP TABLE api_rate_windows;
