-- +goose Up
-- A pricing model's note for admins (how it was set up, what to check), kept apart from
-- the description that reps read beside the model on every application.
ALTER TABLE pricing_models ADD COLUMN admin_note text NOT NULL DEFAULT '';
-- The example models created at first start carried their set-up note in the description.
UPDATE pricing_models
SET description = rtrim(replace(description, ' This example was created at first start: check its code and fees against your upstream contract.', '')),
    admin_note = 'This example was created at first start: check its code and fees against your upstream contract.'
WHERE description LIKE '%This example was created at first start: check its code and fees against your upstream contract.';

-- +goose Down
UPDATE pricing_models SET description = description || ' ' || admin_note WHERE admin_note <> '';
ALTER TABLE pricing_models DROP COLUMN admin_note;
