-- +goose Up
-- Every e-mail the portal sends goes through this outbox first, so that a
-- message is never lost between "decided to send" and "handed to the SMTP
-- server", and admins can read what was (or was not) delivered.
CREATE TABLE mail_outbox (
    id              uuid PRIMARY KEY,
    application_id  uuid REFERENCES applications (id),
    kind            text NOT NULL,
    to_address      text NOT NULL,
    to_name         text NOT NULL DEFAULT '',
    reply_to        text NOT NULL DEFAULT '',
    subject         text NOT NULL,
    text_body       text NOT NULL,
    html_body       text NOT NULL DEFAULT '',
    -- pending: waiting for (another) delivery attempt; held: no SMTP server is
    -- configured, so it stays here to be read; failed: given up.
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'held')),
    attempts        integer NOT NULL DEFAULT 0,
    last_error      text,
    -- The message this one is a fresh copy of, when someone sent it again.
    resent_from     uuid REFERENCES mail_outbox (id),
    created_by      uuid REFERENCES users (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    next_attempt_at timestamptz
);
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at DESC, id DESC);
CREATE INDEX mail_outbox_application_idx ON mail_outbox (application_id, created_at DESC) WHERE application_id IS NOT NULL;

-- The upstream's status webhooks, kept as received. Events are keyed by the
-- upstream's application id because one may arrive before the push has stored
-- that id on the application; application_id is filled in once it is known.
-- The unique key makes a repeated delivery a no-op.
CREATE TABLE upstream_status_events (
    id                      bigserial PRIMARY KEY,
    upstream_application_id text NOT NULL,
    application_id          uuid REFERENCES applications (id),
    status                  text NOT NULL,
    created_upstream        timestamptz NOT NULL,
    received_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (upstream_application_id, status, created_upstream)
);
CREATE INDEX upstream_status_events_app_idx ON upstream_status_events (application_id, created_upstream DESC) WHERE application_id IS NOT NULL;

-- +goose Down
DROP TABLE upstream_status_events;
DROP TABLE mail_outbox;
