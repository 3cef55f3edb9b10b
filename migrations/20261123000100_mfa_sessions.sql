-- +goose Up
-- Multi-factor authentication (TOTP, RFC 6238). The shared secret is sealed
-- with the key ring; mfa_enabled_at is set once the user proved they hold it.
-- mfa_last_step is the newest 30-second step accepted, so an observed code
-- cannot be replayed.
ALTER TABLE users
    ADD COLUMN mfa_secret     text,
    ADD COLUMN mfa_enabled_at timestamptz,
    ADD COLUMN mfa_last_step  bigint NOT NULL DEFAULT 0;

-- One-time recovery codes, for a lost phone. Only hashes are kept.
CREATE TABLE user_recovery_codes (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at    timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- Session tokens are kept only as their SHA-256 hash, so a copy of the
-- table signs nobody in. Existing rows are hashed in place, once.
UPDATE sessions SET token = encode(sha256(convert_to(token, 'UTF8')), 'hex');

-- +goose Down
-- Hashed session tokens cannot be turned back: everyone signs in again.
DELETE FROM sessions;
DROP TABLE user_recovery_codes;
ALTER TABLE users DROP COLUMN mfa_secret, DROP COLUMN mfa_enabled_at, DROP COLUMN mfa_last_step;
