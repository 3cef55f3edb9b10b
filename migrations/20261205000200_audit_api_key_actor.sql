-- +goose Up
-- An entry written through the partner API names the key that did it (actor_key_id)
-- beside the person it acted as (actor_id); the history shows the key's name. A key's
-- own trail (created, revoked) has the key as its subject.
ALTER TABLE audit_events ADD COLUMN actor_key_id uuid REFERENCES api_keys (id);
ALTER TABLE audit_events DROP CONSTRAINT audit_events_subject_kind_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_subject_kind_check
    CHECK (subject_kind IN ('application', 'merchant', 'user', 'transaction', 'message', 'api_key'));

-- +goose Down
DELETE FROM audit_events WHERE subject_kind = 'api_key';
ALTER TABLE audit_events DROP CONSTRAINT audit_events_subject_kind_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_subject_kind_check
    CHECK (subject_kind IN ('application', 'merchant', 'user', 'transaction', 'message'));
ALTER TABLE audit_events DROP COLUMN actor_key_id;
