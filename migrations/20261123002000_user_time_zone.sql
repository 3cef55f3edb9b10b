-- +goose Up
-- Each user's time zone (an IANA name such as America/Los_Angeles): pages show
-- times in it. Empty until the browser tells it at the first sign-in.
ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT ''
    CHECK (length(time_zone) <= 64);

-- +goose Down
ALTER TABLE users DROP COLUMN time_zone;
