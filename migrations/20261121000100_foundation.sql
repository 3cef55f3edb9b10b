-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE users (
    id                    uuid PRIMARY KEY,
    email                 text NOT NULL,
    name                  text NOT NULL DEFAULT '',
    role                  text NOT NULL CHECK (role IN ('admin', 'sales_rep')),
    password_hash         text NOT NULL,
    active                boolean NOT NULL DEFAULT true,
    must_change_password  boolean NOT NULL DEFAULT false,
    -- Bumped whenever a user's existing sessions must stop working
    -- (deactivation, password reset, password change).
    session_version       integer NOT NULL DEFAULT 1,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    deactivated_at        timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Server-side sessions, in the shape alexedwards/scs pgxstore expects.
CREATE TABLE sessions (
    token  text PRIMARY KEY,
    data   bytea NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- Failed sign-ins, counted per account key and per client address for throttling.
CREATE TABLE login_failures (
    id          bigserial PRIMARY KEY,
    account_key text NOT NULL,
    client_ip   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_account_idx ON login_failures (account_key, created_at);
CREATE INDEX login_failures_ip_idx ON login_failures (client_ip, created_at);

CREATE TABLE pricing_models (
    id                      uuid PRIMARY KEY,
    name                    text NOT NULL,
    description             text NOT NULL DEFAULT '',
    upstream_code           text NOT NULL,
    device_purchased        boolean NOT NULL DEFAULT false,
    fee_summary             text NOT NULL DEFAULT '',
    required_document_types text[] NOT NULL DEFAULT '{}',
    active                  boolean NOT NULL DEFAULT true,
    archived_at             timestamptz,
    created_by              uuid REFERENCES users (id),
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX pricing_models_active_code_key ON pricing_models (upstream_code) WHERE archived_at IS NULL;

CREATE TABLE pricing_model_events (
    id               bigserial PRIMARY KEY,
    pricing_model_id uuid NOT NULL REFERENCES pricing_models (id),
    actor_id         uuid REFERENCES users (id),
    action           text NOT NULL,
    old_code         text,
    new_code         text,
    details          jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pricing_model_events_model_idx ON pricing_model_events (pricing_model_id, created_at);

-- One merchant application. Its id doubles as the upstream externalApplicationId,
-- so it must never change. The full draft lives in draft (personal data inside
-- it is encrypted); the columns beside it are copies kept for search and lists.
CREATE TABLE applications (
    id                      uuid PRIMARY KEY,
    owner_id                uuid NOT NULL REFERENCES users (id),
    status                  text NOT NULL DEFAULT 'draft',
    legal_name              text NOT NULL DEFAULT '',
    dba                     text NOT NULL DEFAULT '',
    contact_name            text NOT NULL DEFAULT '',
    contact_email           text NOT NULL DEFAULT '',
    search_text             text GENERATED ALWAYS AS (lower(dba || ' ' || legal_name || ' ' || contact_name || ' ' || contact_email)) STORED,
    draft                   jsonb NOT NULL DEFAULT '{}',
    pricing_model_id        uuid REFERENCES pricing_models (id),
    version                 integer NOT NULL DEFAULT 1,
    submitted_pricing_code  text,
    submitted_snapshot      jsonb,
    submitted_at            timestamptz,
    submitted_by            uuid REFERENCES users (id),
    upstream_application_id text,
    handoff_link            text,
    linked_at               timestamptz,
    upstream_status         text,
    upstream_status_at      timestamptz,
    last_error              text,
    opened_at               timestamptz,
    open_token              text UNIQUE,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    deleted_at              timestamptz,
    deleted_by              uuid REFERENCES users (id)
);
CREATE INDEX applications_owner_updated_idx ON applications (owner_id, updated_at DESC, id) WHERE deleted_at IS NULL;
CREATE INDEX applications_updated_idx ON applications (updated_at DESC, id) WHERE deleted_at IS NULL;
CREATE INDEX applications_status_idx ON applications (status, updated_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX applications_search_idx ON applications USING gin (search_text gin_trgm_ops);
CREATE UNIQUE INDEX applications_upstream_id_key ON applications (upstream_application_id) WHERE upstream_application_id IS NOT NULL;

CREATE TABLE application_events (
    id             bigserial PRIMARY KEY,
    application_id uuid NOT NULL REFERENCES applications (id),
    actor_id       uuid REFERENCES users (id),
    action         text NOT NULL,
    fields         text[] NOT NULL DEFAULT '{}',
    details        jsonb NOT NULL DEFAULT '{}',
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX application_events_app_idx ON application_events (application_id, created_at);

CREATE TABLE documents (
    id                   uuid PRIMARY KEY,
    application_id       uuid NOT NULL REFERENCES applications (id),
    doc_type             text NOT NULL,
    display_name         text NOT NULL,
    content_type         text NOT NULL,
    size_bytes           bigint NOT NULL,
    sha256               text NOT NULL,
    storage_key          text NOT NULL UNIQUE,
    uploaded_by          uuid REFERENCES users (id),
    created_at           timestamptz NOT NULL DEFAULT now(),
    deleted_at           timestamptz,
    upstream_file_id     text,
    upstream_status      text NOT NULL DEFAULT 'pending',
    upstream_error       text,
    upstream_attempts    integer NOT NULL DEFAULT 0,
    upstream_uploaded_at timestamptz
);
CREATE INDEX documents_app_idx ON documents (application_id) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE documents;
DROP TABLE application_events;
DROP TABLE applications;
DROP TABLE pricing_model_events;
DROP TABLE pricing_models;
DROP TABLE login_failures;
DROP TABLE sessions;
DROP TABLE users;
