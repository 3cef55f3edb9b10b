package applications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// The writes of submitting and of the push upstream. Every push write is guarded by the
// submission it belongs to (status submitting and the same submission_count), so a stale
// job never changes a later submission, a linked application or one handed back to the
// rep; ErrNoMatch says the application moved on.

// Submission is what the submit writes: the snapshot and pricing code it was made with.
type Submission struct {
	PricingCode string
	Snapshot    models.JSON
	By          uuid.UUID
	At          time.Time
}

// Submit moves a draft or an application needing attention to submitting, if the row
// still has a.Version, and returns the new submission number. The version check makes the
// snapshot exactly the draft that was checked. ErrNoMatch means it changed meanwhile.
func (s *Store) Submit(ctx context.Context, q database.Querier, a *models.Application, sub Submission) (int, error) {
	var n int
	err := s.On(q).QueryRow(ctx, `UPDATE applications
		SET status = 'submitting', submission_count = submission_count + 1,
		    submitted_pricing_code = $3, submitted_snapshot = $4, submitted_at = $5, submitted_by = $6,
		    data_sent_at = NULL, documents_sent_at = NULL, push_attempts = 0,
		    push_started_at = NULL, push_finished_at = NULL, last_error = NULL, last_error_kind = NULL, updated_at = $5
		WHERE id = $1 AND version = $2 AND deleted_at IS NULL
		  AND status IN ('draft', 'needs_attention') AND handoff_link IS NULL
		RETURNING submission_count`, a.ID, a.Version, sub.PricingCode, string(sub.Snapshot), sub.At, sub.By).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNoMatch
	}
	if err != nil {
		return 0, fmt.Errorf("submit application: %w", err)
	}
	return n, nil
}

// pushGuard selects the row of the submission a (by id, $1, and submission count, $2)
// while its push is under way.
const pushGuard = `id = $1 AND submission_count = $2 AND status = 'submitting' AND deleted_at IS NULL`

// BeginPush counts one more run of the push of submission n and returns the
// application, or ErrNoMatch when that submission is no longer being pushed.
func (s *Store) BeginPush(ctx context.Context, q database.Querier, id uuid.UUID, n int, now time.Time) (*models.Application, error) {
	a, err := one(ctx, s.On(q), "begin push", `UPDATE applications
		SET push_attempts = push_attempts + 1, push_started_at = coalesce(push_started_at, $3)
		WHERE `+pushGuard+` RETURNING `+columns, id, n, now)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrNoMatch
	}
	return a, err
}

// SetUpstreamID stores the upstream application's id (once: a second, different id is
// refused).
func (s *Store) SetUpstreamID(ctx context.Context, q database.Querier, a *models.Application, upID string, now time.Time) error {
	return s.update(ctx, q, "record upstream application id", `UPDATE applications
		SET upstream_application_id = $3, upstream_started_at = $4
		WHERE `+pushGuard+` AND (upstream_application_id IS NULL OR upstream_application_id = $3)`,
		a.ID, a.SubmissionCount, upID, now)
}

// MarkDataSent records that the data was PATCHed.
func (s *Store) MarkDataSent(ctx context.Context, q database.Querier, a *models.Application, now time.Time) error {
	return s.update(ctx, q, "record data sent", `UPDATE applications SET data_sent_at = $3 WHERE `+pushGuard, a.ID, a.SubmissionCount, now)
}

// MarkDocumentsSent records that the upstream holds every document.
func (s *Store) MarkDocumentsSent(ctx context.Context, q database.Querier, a *models.Application, now time.Time) error {
	return s.update(ctx, q, "record documents sent", `UPDATE applications SET documents_sent_at = $3 WHERE `+pushGuard, a.ID, a.SubmissionCount, now)
}

// NoteRetry keeps the reason of a failed run that will be retried.
func (s *Store) NoteRetry(ctx context.Context, q database.Querier, a *models.Application, message string) error {
	return s.update(ctx, q, "record push retry", `UPDATE applications SET last_error = $3 WHERE `+pushGuard, a.ID, a.SubmissionCount, message)
}

// The kinds of stop that need more than words (applications.last_error_kind).
const (
	// ErrorKindPricingCode: the upstream refused the pricing model's code.
	ErrorKindPricingCode = "pricing_code"
)

// NeedsAttention hands the application back to the rep with message; kind is
// one of the ErrorKind constants, or "".
func (s *Store) NeedsAttention(ctx context.Context, q database.Querier, a *models.Application, message, kind string, now time.Time) error {
	return s.update(ctx, q, "hand application back to the rep", `UPDATE applications
		SET status = 'needs_attention', last_error = $3, last_error_kind = NULLIF($5, ''), push_finished_at = $4, updated_at = $4
		WHERE `+pushGuard, a.ID, a.SubmissionCount, message, now, kind)
}

// Link is what the last step of a push stores.
type Link struct {
	URL, OpenToken string
	// Note stays on the application as its last error; nil clears it.
	Note *string
	At   time.Time
}

// Linked stores the link (sealed) and the first tracked link's token (as its hash), and
// locks the application.
func (s *Store) Linked(ctx context.Context, q database.Querier, a *models.Application, l Link) error {
	sealed, err := s.sealLink(a.ID, l.URL)
	if err != nil {
		return err
	}
	const link = `UPDATE applications
		SET status = 'linked', handoff_link = $3, linked_at = $4, last_error = $5, last_error_kind = NULL,
		    push_finished_at = $4, updated_at = $4
		WHERE ` + pushGuard
	if l.OpenToken == "" {
		return s.update(ctx, q, "record hand-off link", link, a.ID, a.SubmissionCount, sealed, l.At, l.Note)
	}
	// One round trip: the token is kept only when the link was recorded.
	return s.update(ctx, q, "record hand-off link", `WITH linked AS (`+link+` RETURNING id)
		INSERT INTO handoff_open_tokens (token_hash, application_id, created_at, expires_at)
		SELECT $6, id, $4, $7 FROM linked`,
		a.ID, a.SubmissionCount, sealed, l.At, l.Note, HashOpenToken(l.OpenToken), l.At.Add(OpenTokenLifetime))
}

// InFlight is a submission being pushed.
type InFlight struct {
	ID         uuid.UUID
	Submission int
}

// Submitting lists the applications in submitting, the oldest change first.
func (s *Store) Submitting(ctx context.Context, q database.Querier) ([]InFlight, error) {
	rows, err := s.On(q).Query(ctx, `SELECT id, submission_count FROM applications
		WHERE status = 'submitting' AND deleted_at IS NULL ORDER BY updated_at`)
	if err != nil {
		return nil, fmt.Errorf("list submissions in flight: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[InFlight])
	if err != nil {
		return nil, fmt.Errorf("list submissions in flight: %w", err)
	}
	return out, nil
}

// RecordOpen notes that the merchant opened the link behind token: the first open sets
// opened_at. It returns the application, its hand-off link (in the clear) and whether this
// was the first open; models.ErrNotFound when the token is unknown or expired, or its
// application deleted or not linked.
func (s *Store) RecordOpen(ctx context.Context, q database.Querier, token string, now time.Time) (uuid.UUID, string, bool, error) {
	var (
		id    uuid.UUID
		link  string
		first bool
	)
	err := s.On(q).QueryRow(ctx, `WITH prev AS (
			SELECT a.id, a.opened_at FROM applications a
			JOIN handoff_open_tokens t ON t.application_id = a.id
			WHERE t.token_hash = $1 AND t.expires_at > $2 AND a.deleted_at IS NULL AND a.handoff_link IS NOT NULL
			FOR UPDATE OF a)
		UPDATE applications a SET opened_at = coalesce(a.opened_at, $2)
		FROM prev WHERE a.id = prev.id
		RETURNING a.id, a.handoff_link, prev.opened_at IS NULL`, HashOpenToken(token), now).Scan(&id, &link, &first)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, "", false, models.ErrNotFound
	}
	if err != nil {
		return uuid.Nil, "", false, fmt.Errorf("record open: %w", err)
	}
	if link, err = s.openLink(id, link); err != nil {
		return uuid.Nil, "", false, err
	}
	return id, link, first, nil
}

// ShowUpstreamStatus shows the upstream's status on the application when it is newer
// (by created, the upstream's time) than the one shown, and reports whether it did.
func (s *Store) ShowUpstreamStatus(ctx context.Context, q database.Querier, id uuid.UUID, status string, created time.Time) (bool, error) {
	tag, err := s.On(q).Exec(ctx, `UPDATE applications SET upstream_status = $2, upstream_status_at = $3
		WHERE id = $1 AND (upstream_status_at IS NULL OR upstream_status_at < $3)`, id, status, created)
	if err != nil {
		return false, fmt.Errorf("update upstream status: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
