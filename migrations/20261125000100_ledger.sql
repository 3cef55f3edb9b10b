-- +goose Up
-- The payments ledger (internal/payments, ledger.go): one table of every transaction a
-- merchant's staff run upstream, from the virtual terminal (card, ach) or a card terminal
-- (terminal), and the timeline of each. No column ever holds a full card number or a
-- security code: the card is kept as brand, first six and last four only. Billing names
-- and addresses, customers' names and e-mail addresses are personal data, sealed with the
-- key ring (fieldcrypt) in *_sealed columns.

-- A merchant's customer: owns saved payment methods and receives receipts.
CREATE TABLE payment_customers (
    id           uuid PRIMARY KEY,
    merchant_id  uuid NOT NULL,
    name_sealed  text NOT NULL,
    email_sealed text NOT NULL DEFAULT '',
    reference    text NOT NULL DEFAULT '',
    created_by   uuid REFERENCES users (id),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX payment_customers_merchant_idx ON payment_customers (merchant_id, created_at DESC);

-- Every upstream transaction: the intent row is committed before the upstream call, with
-- the id that becomes its externalTransactionId and idempotency key (direct payments), and
-- the processor's answer fills the rest. A void, capture or tip adjustment is a row of its
-- own (it has its own upstream ids) whose parent is the original; refunds link to theirs.
CREATE TABLE ledger_transactions (
    id                uuid PRIMARY KEY,
    merchant_id       uuid NOT NULL,
    source            text NOT NULL CHECK (source IN ('card', 'ach', 'terminal')),
    kind              text NOT NULL CHECK (kind IN ('sale', 'authorization', 'capture', 'refund', 'void',
                                                    'tip_adjust', 'save_method')),
    status            text NOT NULL CHECK (status IN ('pending', 'checking', 'approved', 'partial', 'declined',
                                                      'failed', 'not_charged', 'voided', 'captured', 'cancelled')),
    parent_id         uuid REFERENCES ledger_transactions (id),
    customer_id       uuid REFERENCES payment_customers (id),
    saved_method_id   uuid,
    -- Money in cents: amount before tip (tax included), tip, tax; what the processor
    -- approved (tip included); what it did not (a partial approval's balance); and the
    -- approved refunds recorded against this row.
    amount_cents      bigint NOT NULL DEFAULT 0 CHECK (amount_cents >= 0),
    tip_cents         bigint NOT NULL DEFAULT 0 CHECK (tip_cents >= 0),
    tax_cents         bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    approved_cents    bigint NOT NULL DEFAULT 0 CHECK (approved_cents >= 0),
    balance_cents     bigint NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
    refunded_cents    bigint NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0),
    reference         text NOT NULL DEFAULT '',
    -- The card or bank account, masked: never more than the first six and last four.
    brand             text NOT NULL DEFAULT '',
    first6            text NOT NULL DEFAULT '' CHECK (first6 ~ '^[0-9]{0,6}$'),
    last4             text NOT NULL DEFAULT '' CHECK (last4 ~ '^[0-9]{0,4}$'),
    account_type      text NOT NULL DEFAULT '',
    billing_sealed    text NOT NULL DEFAULT '',
    -- Terminal transactions: where they ran.
    location_id       text NOT NULL DEFAULT '',
    device_name       text NOT NULL DEFAULT '',
    -- The processor's answer.
    unique_trans_id   text,
    upstream_type     text NOT NULL DEFAULT '',
    approval_code     text NOT NULL DEFAULT '',
    result_message    text NOT NULL DEFAULT '',
    avs_code          text NOT NULL DEFAULT '',
    cvv_code          text NOT NULL DEFAULT '',
    batch_number      text NOT NULL DEFAULT '',
    held_for_review   boolean NOT NULL DEFAULT false,
    review_reasons    text NOT NULL DEFAULT '',
    details           jsonb NOT NULL DEFAULT '{}',
    created_by        uuid REFERENCES users (id),
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    answered_at       timestamptz,
    -- An unknown outcome becomes "not charged" only when read-backs until this time all
    -- found nothing.
    check_until       timestamptz
);
CREATE INDEX ledger_transactions_merchant_idx ON ledger_transactions (merchant_id, created_at DESC, id DESC);
CREATE INDEX ledger_transactions_unique_idx ON ledger_transactions (merchant_id, unique_trans_id) WHERE unique_trans_id IS NOT NULL;
CREATE INDEX ledger_transactions_parent_idx ON ledger_transactions (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX ledger_transactions_batch_idx ON ledger_transactions (merchant_id, batch_number) WHERE batch_number <> '';
CREATE INDEX ledger_transactions_duplicate_idx ON ledger_transactions (merchant_id, last4, created_at DESC);
CREATE INDEX ledger_transactions_open_idx ON ledger_transactions (status) WHERE status IN ('pending', 'checking');

-- The timeline of a transaction: its request, the processor's answer, voids, refunds,
-- tips, receipts, and who did each.
CREATE TABLE ledger_events (
    id             bigserial PRIMARY KEY,
    transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
    kind           text NOT NULL,
    actor_id       uuid REFERENCES users (id),
    related_id     uuid REFERENCES ledger_transactions (id),
    message        text NOT NULL DEFAULT '',
    details        jsonb NOT NULL DEFAULT '{}',
    at             timestamptz NOT NULL
);
CREATE INDEX ledger_events_transaction_idx ON ledger_events (transaction_id, at, id);

-- A saved card or bank account: the processor's token (the uniqueTransId of the
-- transaction that saved it) and how it looks, masked.
CREATE TABLE saved_payment_methods (
    id                    uuid PRIMARY KEY,
    merchant_id           uuid NOT NULL,
    customer_id           uuid NOT NULL REFERENCES payment_customers (id),
    method                text NOT NULL CHECK (method IN ('card', 'bank_account')),
    brand                 text NOT NULL DEFAULT '',
    first6                text NOT NULL DEFAULT '' CHECK (first6 ~ '^[0-9]{0,6}$'),
    last4                 text NOT NULL DEFAULT '' CHECK (last4 ~ '^[0-9]{0,4}$'),
    account_type          text NOT NULL DEFAULT '',
    token                 text NOT NULL,
    saved_by_transaction  uuid REFERENCES ledger_transactions (id),
    created_by            uuid REFERENCES users (id),
    created_at            timestamptz NOT NULL,
    removed_at            timestamptz,
    removed_by            uuid REFERENCES users (id)
);
CREATE INDEX saved_payment_methods_customer_idx ON saved_payment_methods (customer_id) WHERE removed_at IS NULL;
ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_saved_method_fkey
    FOREIGN KEY (saved_method_id) REFERENCES saved_payment_methods (id);

-- Consents: a customer's permission to keep a card or bank account on file, and the
-- authorization of an ACH debit that Nacha requires. The text shown is versioned; what
-- was agreed, by whom, recorded by whom, when and how.
CREATE TABLE payment_consents (
    id               uuid PRIMARY KEY,
    merchant_id      uuid NOT NULL,
    customer_id      uuid REFERENCES payment_customers (id),
    purpose          text NOT NULL CHECK (purpose IN ('save_method', 'ach_debit')),
    text_version     text NOT NULL,
    given_how        text NOT NULL,
    given_by_sealed  text NOT NULL DEFAULT '',
    transaction_id   uuid REFERENCES ledger_transactions (id),
    saved_method_id  uuid REFERENCES saved_payment_methods (id),
    recorded_by      uuid NOT NULL REFERENCES users (id),
    recorded_at      timestamptz NOT NULL
);
CREATE INDEX payment_consents_transaction_idx ON payment_consents (transaction_id) WHERE transaction_id IS NOT NULL;

-- +goose Down
DROP TABLE payment_consents;
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_saved_method_fkey;
DROP TABLE saved_payment_methods;
DROP TABLE ledger_events;
DROP TABLE ledger_transactions;
DROP TABLE payment_customers;
