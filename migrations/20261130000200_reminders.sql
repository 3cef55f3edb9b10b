-- +goose Up
-- Reminders tied to the processor's state. An admin configures each kind; a periodic
-- job sends what is due through the outbox.
CREATE TABLE reminder_settings (
    kind           text PRIMARY KEY CHECK (kind IN ('not_opened', 'not_accepted', 'processing_pending', 'stale_drafts')),
    enabled        boolean NOT NULL DEFAULT true,
    -- The first is sent this many days after the state began (0: at once).
    after_days     integer NOT NULL CHECK (after_days BETWEEN 0 AND 365),
    -- Later ones this many days after the one before (the digest is weekly).
    interval_days  integer NOT NULL CHECK (interval_days BETWEEN 1 AND 365),
    -- At most this many while the state lasts.
    max_sends      integer NOT NULL DEFAULT 3 CHECK (max_sends BETWEEN 1 AND 10),
    -- The weekly digest goes out on this day (0 Sunday … 6 Saturday) in each rep's zone.
    digest_weekday smallint NOT NULL DEFAULT 1 CHECK (digest_weekday BETWEEN 0 AND 6),
    updated_by     uuid REFERENCES users (id),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO reminder_settings (kind, after_days, interval_days, max_sends) VALUES
    ('not_opened', 3, 3, 3),
    ('not_accepted', 3, 3, 3),
    ('processing_pending', 0, 2, 3),
    ('stale_drafts', 7, 7, 3);

-- Every reminder sent, one row per (application, kind, state, number). The state is
-- named by when it began (episode), so a state that comes back later starts anew. The
-- unique key makes the job safe to run twice, or on two instances at once: the second
-- insert finds the first and sends nothing.
CREATE TABLE reminders_sent (
    id             bigserial PRIMARY KEY,
    application_id uuid NOT NULL REFERENCES applications (id),
    kind           text NOT NULL,
    episode        timestamptz NOT NULL,
    seq            integer NOT NULL CHECK (seq >= 1),
    recipient      text NOT NULL CHECK (recipient IN ('merchant', 'rep')),
    message_id     uuid REFERENCES mail_outbox (id),
    sent_at        timestamptz NOT NULL,
    UNIQUE (application_id, kind, episode, seq)
);
CREATE INDEX reminders_sent_application_idx ON reminders_sent (application_id, sent_at DESC);

-- One weekly digest per rep and week (the Monday of the week in the rep's zone).
CREATE TABLE reminder_digests (
    user_id    uuid NOT NULL REFERENCES users (id),
    week       date NOT NULL,
    message_id uuid REFERENCES mail_outbox (id),
    sent_at    timestamptz NOT NULL,
    PRIMARY KEY (user_id, week)
);

-- Applications whose reminders a rep paused.
CREATE TABLE reminder_pauses (
    application_id uuid PRIMARY KEY REFERENCES applications (id),
    paused_by      uuid REFERENCES users (id),
    paused_at      timestamptz NOT NULL
);

-- The job looks for linked applications by their upstream state, and for stale drafts.
CREATE INDEX applications_reminder_linked_idx ON applications (upstream_status, linked_at)
    WHERE status = 'linked' AND deleted_at IS NULL;

-- +goose Down
DROP INDEX applications_reminder_linked_idx;
DROP TABLE reminder_pauses;
DROP TABLE reminder_digests;
DROP TABLE reminders_sent;
DROP TABLE reminder_settings;
