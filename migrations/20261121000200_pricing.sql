-- +goose Up
-- version lets an admin's save fail cleanly when another admin changed the same
-- model in the meantime, instead of silently overwriting their change.
ALTER TABLE pricing_models ADD COLUMN version integer NOT NULL DEFAULT 1;

-- The code is sent upstream verbatim; the application checks the same rule and
-- explains it, this only keeps a bad value from ever being stored.
ALTER TABLE pricing_models ADD CONSTRAINT pricing_models_upstream_code_format
    CHECK (upstream_code ~ '^[A-Za-z0-9._-]{2,64}$');

-- The audit trail outlives the model: deleting an unused model keeps its history,
-- including the deletion itself, so the events no longer reference the row.
ALTER TABLE pricing_model_events DROP CONSTRAINT pricing_model_events_pricing_model_id_fkey;

-- "Is this model in use?" is asked before every delete and on the list page.
CREATE INDEX applications_pricing_model_idx ON applications (pricing_model_id) WHERE pricing_model_id IS NOT NULL;

-- +goose Down
DROP INDEX applications_pricing_model_idx;
DELETE FROM pricing_model_events e WHERE NOT EXISTS (SELECT 1 FROM pricing_models m WHERE m.id = e.pricing_model_id);
ALTER TABLE pricing_model_events ADD CONSTRAINT pricing_model_events_pricing_model_id_fkey
    FOREIGN KEY (pricing_model_id) REFERENCES pricing_models (id);
ALTER TABLE pricing_models DROP CONSTRAINT pricing_models_upstream_code_format;
ALTER TABLE pricing_models DROP COLUMN version;
