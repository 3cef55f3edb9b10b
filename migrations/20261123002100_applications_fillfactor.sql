-- +goose Up
-- Room on every page of applications for the new versions of its rows. Most updates of a
-- row change no indexed column (a push recording its steps, the processor's status), and
-- PostgreSQL can then keep the new version on the same page without touching the table's
-- fourteen indexes (a HOT update). With full pages each such update wrote to every index,
-- the trigram index included. Rows written from now on get the room; VACUUM FULL or
-- pg_repack gives it to the existing ones.
ALTER TABLE applications SET (fillfactor = 70);

-- +goose Down
ALTER TABLE applications RESET (fillfactor);
