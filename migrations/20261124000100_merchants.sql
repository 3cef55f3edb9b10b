-- +goose Up
-- Boarded merchants (issue 16): a merchant is created when the upstream reports an
-- application boarded (or installed, active), once. Its payment account (area B) and
-- terminal cloud account and locations (area C) hold the credentials the operator hands
-- over; secrets are sealed with the key ring (fieldcrypt) and only their last four
-- characters are kept readable. People of the merchant are users of the new role
-- 'merchant' with a membership per merchant carrying their permissions.

ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'sales_rep', 'merchant'));

CREATE TABLE merchants (
    id                  uuid PRIMARY KEY,
    application_id      uuid NOT NULL UNIQUE REFERENCES applications (id),
    -- The business name at boarding (DBA, else legal name) and the legal name.
    name                text NOT NULL,
    legal_name          text NOT NULL DEFAULT '',
    -- When the upstream says it boarded the merchant (the created time of the
    -- first boarded, installed or active event).
    boarded_at          timestamptz NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    -- An admin stopped every payment and terminal action of the merchant.
    suspended_at        timestamptz,
    suspended_by        uuid REFERENCES users (id),
    suspend_reason      text NOT NULL DEFAULT '',
    -- A declined or withdrawn the upstream reported after boarding: recorded and
    -- raised, never applied; an admin decides (suspend, or keep going).
    alert_status        text CHECK (alert_status IN ('declined', 'withdrawn')),
    alert_at            timestamptz,
    alert_resolved_at   timestamptz,
    alert_resolved_by   uuid REFERENCES users (id),
    alert_resolution    text NOT NULL DEFAULT '',
    -- Credentials fetched from the sandbox after boarding (sandbox mode only).
    sandbox_fetch       text NOT NULL DEFAULT 'none' CHECK (sandbox_fetch IN ('none', 'pending', 'done', 'failed')),
    sandbox_fetch_error text NOT NULL DEFAULT ''
);
CREATE INDEX merchants_name_idx ON merchants (lower(name), id);

-- Area B: the direct payment account id and its bearer token.
CREATE TABLE merchant_payment_accounts (
    merchant_id   uuid PRIMARY KEY REFERENCES merchants (id),
    oid           text NOT NULL,
    token_sealed  text NOT NULL,
    token_last4   text NOT NULL,
    source        text NOT NULL CHECK (source IN ('admin', 'sandbox')),
    updated_by    uuid REFERENCES users (id),
    updated_at    timestamptz NOT NULL,
    -- The last "test connection": when, whether it worked, what was wrong.
    checked_at    timestamptz,
    check_ok      boolean,
    check_message text NOT NULL DEFAULT ''
);

-- Area C: the terminal cloud API key, and the merchant's locations.
CREATE TABLE merchant_terminal_accounts (
    merchant_id    uuid PRIMARY KEY REFERENCES merchants (id),
    api_key_sealed text NOT NULL,
    api_key_last4  text NOT NULL,
    source         text NOT NULL CHECK (source IN ('admin', 'sandbox')),
    updated_by     uuid REFERENCES users (id),
    updated_at     timestamptz NOT NULL
);

CREATE TABLE merchant_locations (
    id            uuid PRIMARY KEY,
    merchant_id   uuid NOT NULL REFERENCES merchants (id),
    location_id   text NOT NULL,
    name          text NOT NULL,
    -- Every transaction launched at the location is a test (TestMode).
    test_mode     boolean NOT NULL DEFAULT true,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    -- Removed locations are kept for the transactions that name them.
    removed_at    timestamptz,
    checked_at    timestamptz,
    check_ok      boolean,
    check_message text NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX merchant_locations_live_key ON merchant_locations (merchant_id, location_id) WHERE removed_at IS NULL;

-- Who of the merchant may do what. A person may belong to several merchants.
-- Nothing is granted by default.
CREATE TABLE merchant_memberships (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    user_id     uuid NOT NULL REFERENCES users (id),
    permissions text[] NOT NULL DEFAULT '{}'
        CHECK (permissions <@ ARRAY['take_payments', 'capture_adjust', 'void', 'refund', 'saved_methods', 'use_terminals', 'view_only']::text[]),
    created_by  uuid REFERENCES users (id),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (merchant_id, user_id)
);
CREATE INDEX merchant_memberships_user_idx ON merchant_memberships (user_id);

-- Why the last submission stopped, when it is something other than words can
-- carry: 'pricing_code' links admins to the pricing model to fix.
ALTER TABLE applications ADD COLUMN last_error_kind text CHECK (last_error_kind IN ('pricing_code'));

-- +goose Down
ALTER TABLE applications DROP COLUMN last_error_kind;
DROP TABLE merchant_memberships;
DROP TABLE merchant_locations;
DROP TABLE merchant_terminal_accounts;
DROP TABLE merchant_payment_accounts;
DROP TABLE merchants;
DELETE FROM user_invitations WHERE user_id IN (SELECT id FROM users WHERE role = 'merchant');
UPDATE mail_outbox SET created_by = NULL WHERE created_by IN (SELECT id FROM users WHERE role = 'merchant');
DELETE FROM users WHERE role = 'merchant';
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'sales_rep'));
