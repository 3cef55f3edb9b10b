package mail

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/payportal/portal/internal/models"
)

// querier is what both a pool and a transaction offer, so the same statements
// run inside a caller's transaction or on their own.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

const messageColumns = `id, application_id, kind, to_address, to_name, reply_to, subject, text_body, html_body,
	status, attempts, coalesce(last_error, ''), resent_from, created_by, created_at, sent_at, next_attempt_at,
	coalesce(secret_link, '')`

func scanMessage(row pgx.Row) (*Message, error) {
	var m Message
	err := row.Scan(&m.ID, &m.ApplicationID, &m.Kind, &m.To, &m.ToName, &m.ReplyTo, &m.Subject, &m.Text, &m.HTML,
		&m.Status, &m.Attempts, &m.LastError, &m.ResentFrom, &m.CreatedBy, &m.CreatedAt, &m.SentAt, &m.NextAttemptAt,
		&m.sealedLink)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox message: %w", err)
	}
	return &m, nil
}

func insertMessage(ctx context.Context, q querier, m *Message) error {
	_, err := q.Exec(ctx, `INSERT INTO mail_outbox
		(id, application_id, kind, to_address, to_name, reply_to, subject, text_body, html_body, status, resent_from, created_by, created_at, secret_link)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, nullif($14, ''))`,
		m.ID, m.ApplicationID, m.Kind, m.To, m.ToName, m.ReplyTo, m.Subject, m.Text, m.HTML, m.Status, m.ResentFrom, m.CreatedBy, m.CreatedAt, m.sealedLink)
	if err != nil {
		return fmt.Errorf("store outbox message: %w", err)
	}
	return nil
}

func getMessage(ctx context.Context, q querier, id uuid.UUID) (*Message, error) {
	return scanMessage(q.QueryRow(ctx, `SELECT `+messageColumns+` FROM mail_outbox WHERE id = $1`, id))
}

func listMessages(ctx context.Context, q querier, where string, args ...any) ([]Message, error) {
	rows, err := q.Query(ctx, `SELECT `+messageColumns+` FROM mail_outbox `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	return out, nil
}

// The updates below change only a pending message, so a job that runs twice
// cannot move a message back out of a final state.

func markSent(ctx context.Context, q querier, id uuid.UUID, attempt int, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE mail_outbox SET status = 'sent', attempts = $2, sent_at = $3, next_attempt_at = NULL
		WHERE id = $1 AND status = 'pending'`, id, attempt, at)
	return wrapUpdate(err)
}

func markHeld(ctx context.Context, q querier, id uuid.UUID) error {
	_, err := q.Exec(ctx, `UPDATE mail_outbox SET status = 'held', next_attempt_at = NULL
		WHERE id = $1 AND status = 'pending'`, id)
	return wrapUpdate(err)
}

func markRetrying(ctx context.Context, q querier, id uuid.UUID, attempt int, reason string, next time.Time) error {
	_, err := q.Exec(ctx, `UPDATE mail_outbox SET attempts = $2, last_error = $3, next_attempt_at = $4
		WHERE id = $1 AND status = 'pending'`, id, attempt, reason, next)
	return wrapUpdate(err)
}

func markFailed(ctx context.Context, q querier, id uuid.UUID, attempt int, reason string) error {
	_, err := q.Exec(ctx, `UPDATE mail_outbox SET status = 'failed', attempts = $2, last_error = $3, next_attempt_at = NULL
		WHERE id = $1 AND status = 'pending'`, id, attempt, reason)
	return wrapUpdate(err)
}

func wrapUpdate(err error) error {
	if err != nil {
		return fmt.Errorf("update outbox message: %w", err)
	}
	return nil
}
