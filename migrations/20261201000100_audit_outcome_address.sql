-- +goose Up
-- Every audit entry says whether the act succeeded (a refused attempt is recorded too:
-- a wrong current password, a wrong two-step code) and, when a person's request made
-- it, the address the request came from (PCI DSS 10.2.2). Entries made before keep
-- no address and count as successes.
ALTER TABLE audit_events ADD COLUMN outcome text NOT NULL DEFAULT 'success'
    CONSTRAINT audit_events_outcome_check CHECK (outcome IN ('success', 'failure'));
ALTER TABLE audit_events ADD COLUMN client_address inet;

-- +goose Down
ALTER TABLE audit_events DROP COLUMN client_address;
ALTER TABLE audit_events DROP COLUMN outcome;
