-- +goose Up
-- Bulk import of drafts from a CSV file. The file itself is never stored: each row is
-- sealed with the key ring as soon as it is parsed (cells), and the whole batch expires
-- an hour after the upload; a periodic job deletes expired batches.
CREATE TABLE import_batches (
    id                 uuid PRIMARY KEY,
    created_by         uuid NOT NULL REFERENCES users (id),
    -- Whose drafts the rows become.
    owner_id           uuid NOT NULL REFERENCES users (id),
    file_name          text NOT NULL CHECK (length(file_name) <= 255),
    headers            text[] NOT NULL,
    -- The canonical field of each column ('' for a column left out), by position.
    mapping            text[] NOT NULL DEFAULT '{}',
    status             text NOT NULL CHECK (status IN ('mapping', 'preview', 'importing', 'done')),
    on_duplicate       text NOT NULL DEFAULT 'skip' CHECK (on_duplicate IN ('skip', 'update')),
    row_count          integer NOT NULL,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    import_started_at  timestamptz,
    import_finished_at timestamptz
);
CREATE INDEX import_batches_creator_idx ON import_batches (created_by, created_at DESC);
CREATE INDEX import_batches_expires_idx ON import_batches (expires_at);

CREATE TABLE import_rows (
    batch_id       uuid NOT NULL REFERENCES import_batches (id) ON DELETE CASCADE,
    -- The row as a spreadsheet numbers it: the header is row 1.
    row_number     integer NOT NULL,
    -- The row's cells, sealed (a JSON array of text), bound to the batch and the row.
    cells          text NOT NULL,
    -- After the preview: valid, invalid or duplicate; errors by column, never a value.
    check_status   text CHECK (check_status IN ('valid', 'invalid', 'duplicate')),
    errors         jsonb,
    duplicate_of   uuid REFERENCES applications (id),
    -- After the import: what became of the row.
    outcome        text CHECK (outcome IN ('created', 'updated', 'unchanged', 'skipped', 'refused')),
    outcome_note   text,
    application_id uuid REFERENCES applications (id),
    PRIMARY KEY (batch_id, row_number)
);
CREATE INDEX import_rows_pending_idx ON import_rows (batch_id, row_number)
    WHERE outcome IS NULL AND check_status IN ('valid', 'duplicate');

-- +goose Down
DROP TABLE import_rows;
DROP TABLE import_batches;
