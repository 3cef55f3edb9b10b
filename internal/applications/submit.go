package applications

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// PricingCodes gives the upstream code of a pricing model at submission;
// *pricing.Service implements it.
type PricingCodes interface {
	SnapshotCode(ctx context.Context, id uuid.UUID) (string, error)
}

// SubmissionDeps are the collaborators of the submission use cases.
type SubmissionDeps struct {
	Pool *pgxpool.Pool
	// Drafts loads applications with their decrypted draft and checklist.
	Drafts  *Service
	Sealer  *Sealer
	Pricing PricingCodes
	Queue   *jobs.Queue
	Outbox  *mail.Outbox
	Views   *SubmissionViews
	// PublicURL and ResellerName fill the hand-off e-mail and the link shown
	// to the rep.
	PublicURL    *url.URL
	ResellerName string
	Now          func() time.Time
	Log          *slog.Logger
}

// Submissions holds the use cases around handing an application to the
// merchant: submit, watch the push, resend the e-mail.
type Submissions struct {
	d       SubmissionDeps
	handoff *handoffMailer
}

// NewSubmissions returns the submission use cases.
func NewSubmissions(d SubmissionDeps) *Submissions {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Submissions{d: d, handoff: &handoffMailer{db: d.Drafts.store.db, publicURL: d.PublicURL, resellerName: d.ResellerName}}
}

// errSubmitRace refuses a submission of a draft that changed meanwhile.
var errSubmitRace = apperr.New(apperr.KindConflict, "This application changed while it was being submitted (in another tab or by another person). Reload the page, check it and submit again.")

// notReadyMessage refuses a submission while the checklist is not empty.
const notReadyMessage = "This application is not ready to submit yet: %d %s left on the checklist."

// Submit sends a complete application to the processor: it checks the
// readiness checklist, snapshots the pricing code and the data to send, moves
// the application to submitting, records the audit entry and enqueues the
// push job, the last three in one transaction. A resubmission after a failure
// continues with the same upstream application and sends the data again.
func (s *Submissions) Submit(ctx context.Context, u *models.User, id uuid.UUID) error {
	rec, list, err := s.d.Drafts.Checklist(ctx, u, id)
	if err != nil {
		return err
	}
	a := rec.App
	if err := CheckEditable(a); err != nil {
		return err
	}
	if !list.Empty() || a.PricingModelID == nil {
		word := "things"
		if list.Count() == 1 {
			word = "thing"
		}
		return apperr.New(apperr.KindInvalid, notReadyMessage, list.Count(), word)
	}
	code, err := s.d.Pricing.SnapshotCode(ctx, *a.PricingModelID)
	if err != nil {
		return err
	}
	if a.UpstreamApplicationID != nil && a.SubmittedPricingCode != nil && *a.SubmittedPricingCode != code {
		return apperr.New(apperr.KindConflict,
			"The processor's application was started with pricing code “%s”, which cannot change any more. Choose the pricing model with that code again, or ask an admin.",
			*a.SubmittedPricingCode)
	}
	snapshot, err := s.d.Sealer.SealSnapshot(a.ID, UpstreamData(rec.Draft))
	if err != nil {
		return err
	}
	now := s.d.Now().UTC()
	var submission int
	err = pgx.BeginFunc(ctx, s.d.Pool, func(tx pgx.Tx) error {
		// The version check makes the snapshot exactly the draft that was checked.
		err := tx.QueryRow(ctx, `UPDATE applications
			SET status = 'submitting', submission_count = submission_count + 1,
			    submitted_pricing_code = $3, submitted_snapshot = $4, submitted_at = $5, submitted_by = $6,
			    data_sent_at = NULL, documents_sent_at = NULL, push_attempts = 0,
			    push_started_at = NULL, push_finished_at = NULL, last_error = NULL, updated_at = $5
			WHERE id = $1 AND version = $2 AND deleted_at IS NULL
			  AND status IN ('draft', 'needs_attention') AND handoff_link IS NULL
			RETURNING submission_count`, a.ID, a.Version, code, string(snapshot), now, u.ID).Scan(&submission)
		if errors.Is(err, pgx.ErrNoRows) {
			return errSubmitRace
		}
		if err != nil {
			return fmt.Errorf("submit application: %w", err)
		}
		if err := insertEvent(ctx, tx, a.ID, &u.ID, ActionSubmitted, now, map[string]any{
			"pricing_code": code, "submission": submission,
		}); err != nil {
			return err
		}
		_, err = s.d.Queue.InsertTx(ctx, tx, PushArgs{ApplicationID: a.ID, Submission: submission}, nil)
		return err
	})
	if err != nil {
		return err
	}
	s.d.Log.Info("application submitted", "application_id", a.ID, "user_id", u.ID, "submission", submission)
	return nil
}

// errNotLinked refuses to resend an e-mail before the link exists.
var errNotLinked = apperr.New(apperr.KindConflict, "There is no link to send yet: the application has not been handed off to the merchant.")

// ResendHandoff e-mails the merchant their link again: a new message in the
// outbox (the earlier ones keep their own record), written from the current
// owner of the application, and an audit entry.
func (s *Submissions) ResendHandoff(ctx context.Context, u *models.User, id uuid.UUID) (*mail.Message, error) {
	a, err := LoadVisible(ctx, s.d.Drafts.store.db, u, id)
	if err != nil {
		return nil, err
	}
	if !a.Locked() || a.OpenToken == nil {
		return nil, errNotLinked
	}
	msg, err := s.handoff.message(ctx, a, *a.OpenToken)
	if err != nil {
		return nil, err
	}
	previous, err := s.d.Outbox.ForApplication(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	msg.ResentFrom = latestHandoff(previous)
	msg.CreatedBy = &u.ID
	var sent *mail.Message
	now := s.d.Now().UTC()
	err = pgx.BeginFunc(ctx, s.d.Pool, func(tx pgx.Tx) error {
		if sent, err = s.d.Outbox.Enqueue(ctx, tx, msg); err != nil {
			return err
		}
		return insertEvent(ctx, tx, a.ID, &u.ID, ActionHandoffResent, now, map[string]any{"message_id": sent.ID.String()})
	})
	if err != nil {
		return nil, err
	}
	s.d.Log.Info("hand-off e-mail sent again", "application_id", a.ID, "user_id", u.ID, "message_id", sent.ID)
	return sent, nil
}
