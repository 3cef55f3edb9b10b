-- +goose Up
-- Card terminals (internal/terminals): the devices of each merchant location as
-- the terminal cloud's configuration last listed them, the evidence of their
-- health that the portal gathers itself (the cloud reports no live status), and
-- every transaction launched on a terminal: a durable record from the moment the
-- user clicks until the result is recorded or a person says what the terminal
-- showed.

-- One row per location whose configuration the portal has downloaded (or tried
-- to). Locations themselves, their names, test mode and API key belong to the
-- merchant (internal/merchants); this is only what the last download said.
CREATE TABLE terminal_configs (
    location_id     text PRIMARY KEY,
    merchant_id     uuid NOT NULL,
    -- The last download that worked, and the last attempt (failed or not).
    fetched_at      timestamptz,
    attempted_at    timestamptz NOT NULL,
    fetch_ms        integer,
    error           text NOT NULL DEFAULT '',
    controller_name text NOT NULL DEFAULT '',
    last_heartbeat  timestamptz,
    short_ids       boolean NOT NULL DEFAULT false
);
CREATE INDEX terminal_configs_merchant_idx ON terminal_configs (merchant_id);

-- The devices of a location. A device the latest configuration no longer lists
-- keeps its row (its transactions name it) with removed_at set.
CREATE TABLE terminal_devices (
    location_id         text NOT NULL REFERENCES terminal_configs (location_id) ON DELETE CASCADE,
    device_name         text NOT NULL,
    merchant_id         uuid NOT NULL,
    model               text NOT NULL DEFAULT '',
    serial_number       text NOT NULL DEFAULT '',
    is_default          boolean NOT NULL DEFAULT false,
    prompt_tip          boolean NOT NULL DEFAULT false,
    request_signature   boolean NOT NULL DEFAULT false,
    mandatory_signature boolean NOT NULL DEFAULT false,
    active              boolean NOT NULL DEFAULT true,
    refreshed_at        timestamptz NOT NULL,
    removed_at          timestamptz,
    -- Evidence of health, the portal's own: the last call about this device
    -- that the cloud answered (a launch or a result read) and how long it took,
    -- the last result, and the failures in a row since the last success.
    last_ok_at          timestamptz,
    last_ok_ms          integer,
    last_result_at      timestamptz,
    error_streak        integer NOT NULL DEFAULT 0,
    last_error          text NOT NULL DEFAULT '',
    last_error_at       timestamptz,
    PRIMARY KEY (location_id, device_name)
);

-- Every transaction launched on a terminal.
CREATE TABLE terminal_launches (
    id              uuid PRIMARY KEY,
    merchant_id     uuid NOT NULL,
    location_id     text NOT NULL,
    device_name     text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('sale', 'token_sale', 'return', 'void', 'save_card', 'tip')),
    state           text NOT NULL CHECK (state IN ('sending', 'waiting', 'unknown', 'approved', 'declined',
                        'cancelled', 'timed_out', 'card_removed', 'not_sent', 'resent')),
    -- The amount of a sale or return; of a tip, the new total (tip included);
    -- base_cents is a tip's sale amount, so the page shows the difference.
    amount_cents    bigint CHECK (amount_cents IS NULL OR amount_cents > 0),
    base_cents      bigint,
    -- The invoice the user typed (or the portal made up), the payment number
    -- appended to it, and the reference sent (invoice.number), which the
    -- terminal's duplicate detection compares.
    invoice_ref     text NOT NULL,
    payment_number  integer,
    transaction_ref text NOT NULL,
    cashier         text NOT NULL,
    -- The launch this one acts on: the sale a void or a tip names, the saved
    -- card of a token sale.
    original_id     uuid REFERENCES terminal_launches (id),
    -- The ledger transaction a return is linked to (a terminal or a keyed
    -- sale), which caps it.
    linked_ledger_id uuid,
    -- The unknown launch this one sends again, on the user's word.
    resend_of       uuid REFERENCES terminal_launches (id),
    reason          text NOT NULL DEFAULT '',
    test_mode       boolean NOT NULL,
    -- The launch form's one-time token: the same form posted twice (a double
    -- click) is one launch.
    form_token      uuid NOT NULL UNIQUE,
    created_by      uuid NOT NULL REFERENCES users (id),
    created_at      timestamptz NOT NULL,
    -- When the request left (sent_at) and when the cloud accepted it
    -- (launched_at, the start of the five-minute budget), with its id.
    sent_at         timestamptz,
    launched_at     timestamptz,
    unique_trans_id text,
    -- Which portal process follows the launch, until when (a lease renewed
    -- while the process lives; an expired one is taken over).
    follower        text,
    lease_until     timestamptz,
    -- Slow background rechecks of an unknown launch whose id is known.
    recheck_until   timestamptz,
    polls           integer NOT NULL DEFAULT 0,
    -- The result.
    finished_at     timestamptz,
    resolution      text CHECK (resolution IN ('terminal', 'recheck', 'user', 'refused', 'resent')),
    resolved_by     uuid REFERENCES users (id),
    result_message  text NOT NULL DEFAULT '',
    approval_number text NOT NULL DEFAULT '',
    masked_account  text NOT NULL DEFAULT '',
    card_brand      text NOT NULL DEFAULT '',
    entry_method    text NOT NULL DEFAULT '',
    processed_cents bigint,
    tipped_cents    bigint,
    adjusted_cents  bigint,
    batch_number    text NOT NULL DEFAULT '',
    -- The terminal answered with the previous approval from its log: nothing
    -- was charged this time.
    duplicate       boolean NOT NULL DEFAULT false,
    -- Why nothing was sent, or why the outcome is unknown, in plain words.
    problem         text NOT NULL DEFAULT '',
    ledger_id       uuid
);

-- One transaction at a time per device: a second launch on a device that is
-- sending, waiting or unknown is refused by the database itself, whichever
-- portal process or tab asks.
CREATE UNIQUE INDEX terminal_launches_one_per_device ON terminal_launches (location_id, device_name)
    WHERE state IN ('sending', 'waiting', 'unknown');
CREATE UNIQUE INDEX terminal_launches_unique_trans_id ON terminal_launches (location_id, unique_trans_id)
    WHERE unique_trans_id IS NOT NULL;
-- The followers' take-over scan and the pages' lists.
CREATE INDEX terminal_launches_open_idx ON terminal_launches (lease_until)
    WHERE state IN ('sending', 'waiting', 'unknown');
CREATE INDEX terminal_launches_merchant_idx ON terminal_launches (merchant_id, created_at DESC);
CREATE INDEX terminal_launches_invoice_idx ON terminal_launches (merchant_id, invoice_ref);
CREATE INDEX terminal_launches_original_idx ON terminal_launches (original_id) WHERE original_id IS NOT NULL;

-- +goose Down
DROP TABLE terminal_launches;
DROP TABLE terminal_devices;
DROP TABLE terminal_configs;
