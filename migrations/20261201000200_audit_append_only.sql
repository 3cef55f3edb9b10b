-- +goose Up
-- The audit trail is append-only (PCI DSS 10.3.2): a trigger refuses every UPDATE and
-- DELETE of a row and every TRUNCATE, whoever asks — the portal, a person at psql, the
-- table's owner. (A privilege could not do this: the owner of a table keeps every right
-- to it.) Nothing in the portal changes or removes an entry, and nothing prunes the
-- trail; a retention job, should one ever be needed, is the one exception and must be
-- written down in docs/security.md with how it lifts the trigger.

-- +goose StatementBegin
CREATE FUNCTION audit_events_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only: % is refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Audit entries are never changed or removed (PCI DSS 10.3); see docs/security.md.';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_events_append_only
    BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();

CREATE TRIGGER audit_events_no_truncate
    BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();

-- +goose Down
DROP TRIGGER audit_events_no_truncate ON audit_events;
DROP TRIGGER audit_events_append_only ON audit_events;
DROP FUNCTION audit_events_refuse_change();
