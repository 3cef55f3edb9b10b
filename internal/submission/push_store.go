package submission

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/models"
)

// pushStore records the push's progress: on the applications row through the
// aggregate's store, whose writes are guarded by the submission they belong to,
// so a stale job never changes a later submission, a linked application or one
// handed back to the rep (errMovedOn); and in the audit trail.
type pushStore struct {
	apps     *applications.Store
	docs     *documents.Store
	statuses *handoff.UpstreamStatusRecorder
	now      func() time.Time
}

// movedOn turns the store's "no row matched" into errMovedOn.
func movedOn(err error) error {
	if errors.Is(err, applications.ErrNoMatch) {
		return errMovedOn
	}
	return err
}

// begin counts one more run of the push and returns the application, or
// errMovedOn when the submission is no longer being pushed.
func (s *pushStore) begin(ctx context.Context, args PushArgs) (*models.Application, error) {
	a, err := s.apps.BeginPush(ctx, nil, args.ApplicationID, args.Submission, s.now().UTC())
	return a, movedOn(err)
}

// started stores the upstream application's id at once, in its own
// transaction, and applies status webhooks that arrived before it. It runs
// beside the push's next calls, so it reads nothing of the application but
// its id and submission.
func (s *pushStore) started(ctx context.Context, id uuid.UUID, submission int, upID string) error {
	now := s.now().UTC()
	key := &models.Application{ID: id, SubmissionCount: submission}
	return s.apps.InTx(ctx, func(tx pgx.Tx) error {
		// An "initiated" webhook being recorded right now is attached below, or finds the id.
		if err := handoff.LockUpstreamID(ctx, tx, upID); err != nil {
			return err
		}
		if err := s.apps.SetUpstreamID(ctx, tx, key, upID, now); err != nil {
			return movedOn(err)
		}
		return s.statuses.ApplyRecorded(ctx, tx, id, upID, now)
	})
}

// dataSent records that the data was PATCHed.
func (s *pushStore) dataSent(ctx context.Context, a *models.Application) error {
	now := s.now().UTC()
	if err := s.apps.MarkDataSent(ctx, nil, a, now); err != nil {
		return movedOn(err)
	}
	a.DataSentAt = &now
	return nil
}

// documentsSent records that the upstream holds every document.
func (s *pushStore) documentsSent(ctx context.Context, a *models.Application) error {
	now := s.now().UTC()
	if err := s.apps.MarkDocumentsSent(ctx, nil, a, now); err != nil {
		return movedOn(err)
	}
	a.DocumentsSentAt = &now
	return nil
}

// noteRetry keeps the reason of a failed run that will be retried, for the
// progress display.
func (s *pushStore) noteRetry(ctx context.Context, a *models.Application, message string) error {
	return movedOn(s.apps.NoteRetry(ctx, nil, a, message))
}

// documents lists the application's current documents, oldest first.
func (s *pushStore) documents(ctx context.Context, appID uuid.UUID) ([]models.Document, error) {
	return s.docs.List(ctx, appID)
}

// needsAttention hands the application back to the rep with message, and
// records it in the audit trail.
func (s *pushStore) needsAttention(ctx context.Context, a *models.Application, step, message, kind string) error {
	now := s.now().UTC()
	return s.apps.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.apps.NeedsAttention(ctx, tx, a, message, kind, now); err != nil {
			return movedOn(err)
		}
		details := map[string]any{"step": step, "message": message}
		if kind != "" {
			details["kind"] = kind
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Application(a.ID), Action: audit.ActionSubmissionFailed,
			Details: details, At: now})
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
	return s.apps.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.apps.Linked(ctx, tx, a, applications.Link{URL: out.link, OpenToken: out.token, Note: note, At: now}); err != nil {
			return movedOn(err)
		}
		details := map[string]any{"upstream_application_id": deref(a.UpstreamApplicationID)}
		if out.dataNotResent {
			details["data_not_resent"] = true
		}
		if err := audit.Record(ctx, tx, audit.Event{Subject: audit.Application(a.ID), Action: audit.ActionLinked, Details: details, At: now}); err != nil {
			return err
		}
		return also(ctx, tx)
	})
}
