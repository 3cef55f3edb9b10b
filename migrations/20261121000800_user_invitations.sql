-- +goose Up
-- One-time links that let an invited user choose their own password. Only a
-- hash of the token is kept, so the table gives nobody a usable link.
CREATE TABLE user_invitations (
    token_hash text PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id),
    created_by uuid REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX user_invitations_user_idx ON user_invitations (user_id);

-- +goose Down
DROP TABLE user_invitations;
