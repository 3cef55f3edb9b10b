package applications

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
)

// The audit actions of submission and hand-off (application_events.action).
const (
	// ActionLinked: the link exists, the application is locked and the merchant e-mailed.
	ActionLinked = "linked"
	// ActionSubmissionFailed: the push stopped and the application went back to the rep.
	ActionSubmissionFailed = "submission_failed"
	// ActionHandoffResent: a rep sent the hand-off e-mail again.
	ActionHandoffResent = "handoff_resent"
)

// pushStore records the push's progress on the applications row. Every write
// is guarded by the submission it belongs to (status submitting and the same
// submission_count), so a stale job never changes a later submission, a
// linked application or one handed back to the rep.
type pushStore struct {
	db   *gorm.DB
	pool *pgxpool.Pool
	now  func() time.Time
}

// pushGuard selects the row of the submission a (by id, $1, and submission
// count, $2) while its push is under way.
const pushGuard = `id = $1 AND submission_count = $2 AND status = 'submitting' AND deleted_at IS NULL`

// begin counts one more run of the push and returns the application, or
// errMovedOn when the submission is no longer being pushed.
func (s *pushStore) begin(ctx context.Context, args PushArgs) (*models.Application, error) {
	var a models.Application
	err := s.db.WithContext(ctx).Raw(`UPDATE applications
		SET push_attempts = push_attempts + 1, push_started_at = coalesce(push_started_at, ?)
		WHERE id = ? AND submission_count = ? AND status = 'submitting' AND deleted_at IS NULL
		RETURNING *`, s.now().UTC(), args.ApplicationID, args.Submission).Scan(&a).Error
	if err != nil {
		return nil, fmt.Errorf("begin push of application %s: %w", args.ApplicationID, err)
	}
	if a.ID == uuid.Nil {
		return nil, errMovedOn
	}
	return &a, nil
}

// started stores the upstream application's id at once, in its own
// transaction, and applies status webhooks that arrived before it.
func (s *pushStore) started(ctx context.Context, a *models.Application, upID string) error {
	now := s.now().UTC()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE applications SET upstream_application_id = $3, upstream_started_at = $4
			WHERE `+pushGuard+` AND (upstream_application_id IS NULL OR upstream_application_id = $3)`,
			a.ID, a.SubmissionCount, upID, now)
		if err != nil {
			return fmt.Errorf("record upstream application id: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return errMovedOn
		}
		return ApplyRecordedUpstreamStatus(ctx, tx, a.ID, upID, now)
	})
	if err != nil {
		return err
	}
	a.UpstreamApplicationID, a.UpstreamStartedAt = &upID, &now
	return nil
}

// dataSent records that the data was PATCHed.
func (s *pushStore) dataSent(ctx context.Context, a *models.Application) error {
	now := s.now().UTC()
	if err := s.exec(ctx, "record data sent", `UPDATE applications SET data_sent_at = $3 WHERE `+pushGuard, a, now); err != nil {
		return err
	}
	a.DataSentAt = &now
	return nil
}

// documentsSent records that the upstream holds every document.
func (s *pushStore) documentsSent(ctx context.Context, a *models.Application) error {
	now := s.now().UTC()
	if err := s.exec(ctx, "record documents sent", `UPDATE applications SET documents_sent_at = $3 WHERE `+pushGuard, a, now); err != nil {
		return err
	}
	a.DocumentsSentAt = &now
	return nil
}

// noteRetry keeps the reason of a failed run that will be retried, for the
// progress display.
func (s *pushStore) noteRetry(ctx context.Context, a *models.Application, message string) error {
	return s.exec(ctx, "record push retry", `UPDATE applications SET last_error = $3 WHERE `+pushGuard, a, message)
}

func (s *pushStore) exec(ctx context.Context, what, sql string, a *models.Application, value any) error {
	tag, err := s.pool.Exec(ctx, sql, a.ID, a.SubmissionCount, value)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if tag.RowsAffected() == 0 {
		return errMovedOn
	}
	return nil
}

// documents lists the application's current documents, oldest first.
func (s *pushStore) documents(ctx context.Context, appID uuid.UUID) ([]models.Document, error) {
	var docs []models.Document
	err := s.db.WithContext(ctx).Where("application_id = ? AND deleted_at IS NULL", appID).
		Order("created_at, id").Find(&docs).Error
	if err != nil {
		return nil, fmt.Errorf("list documents to send: %w", err)
	}
	return docs, nil
}

// needsAttention hands the application back to the rep with message, and
// records it in the audit trail.
func (s *pushStore) needsAttention(ctx context.Context, a *models.Application, step, message string) error {
	now := s.now().UTC()
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE applications
			SET status = 'needs_attention', last_error = $3, push_finished_at = $4, updated_at = $4
			WHERE `+pushGuard, a.ID, a.SubmissionCount, message, now)
		if err != nil {
			return fmt.Errorf("hand application back to the rep: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return errMovedOn
		}
		return insertEvent(ctx, tx, a.ID, nil, ActionSubmissionFailed, now, map[string]any{"step": step, "message": message})
	})
}

// notResentNote stays on a linked application whose last corrections could not
// be sent because the link already existed upstream.
const notResentNote = "The processor had already created the merchant's link before this submission, so the latest corrections were not sent; the merchant can correct the details on the processor's pages."

// linkedOutcome is what the last step produced.
type linkedOutcome struct {
	link, token string
	// dataNotResent: the link already existed upstream, so this submission's
	// data could not be PATCHed (see PushWorker.alreadyLinked).
	dataNotResent bool
}

// linked stores the link, locks the application and runs also (the e-mail to
// the merchant) in the same transaction.
func (s *pushStore) linked(ctx context.Context, a *models.Application, out linkedOutcome, also func(context.Context, pgx.Tx) error) error {
	now := s.now().UTC()
	var note *string
	if out.dataNotResent {
		note = new(notResentNote)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE applications
			SET status = 'linked', handoff_link = $3, linked_at = $4, open_token = $5, last_error = $6,
			    push_finished_at = $4, updated_at = $4
			WHERE `+pushGuard, a.ID, a.SubmissionCount, out.link, now, out.token, note)
		if err != nil {
			return fmt.Errorf("record hand-off link: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return errMovedOn
		}
		details := map[string]any{"upstream_application_id": deref(a.UpstreamApplicationID)}
		if out.dataNotResent {
			details["data_not_resent"] = true
		}
		if err := insertEvent(ctx, tx, a.ID, nil, ActionLinked, now, details); err != nil {
			return err
		}
		return also(ctx, tx)
	})
}

// insertEvent appends to an application's audit trail inside tx. details
// must never hold personal data.
func insertEvent(ctx context.Context, tx pgx.Tx, appID uuid.UUID, actor *uuid.UUID, action string, at time.Time, details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	b, err := json.Marshal(details)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", action, err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO application_events (application_id, actor_id, action, fields, details, created_at)
		VALUES ($1, $2, $3, '{}', $4, $5)`, appID, actor, action, string(b), at)
	if err != nil {
		return fmt.Errorf("record %s event: %w", action, err)
	}
	return nil
}

// describeSubmissionEvent words the audit entries of the submission and of what
// follows it (opens, upstream states) for the history; the portal is the actor.
func describeSubmissionEvent(action string, d eventDetails) (string, bool) {
	switch action {
	case ActionLinked:
		return "created the merchant's link at the processor and e-mailed it to the merchant", true
	case ActionSubmissionFailed:
		return "stopped the submission: " + d.Message, true
	case ActionHandoffResent:
		return "e-mailed the merchant's link again", true
	case "opened":
		return "recorded that the merchant opened the link", true
	case "upstream_status":
		return "received the processor's status: " + UpstreamStatusLabel(d.Status), true
	}
	return "", false
}
