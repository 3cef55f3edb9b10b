package submission

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/payportal/portal/internal/applications"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
)

// PricingCodes gives the upstream code of a pricing model at submission;
// *pricing.Service implements it.
type PricingCodes interface {
	SnapshotCode(ctx context.Context, id uuid.UUID) (string, error)
}

// Deps are the collaborators of the submission use cases.
type Deps struct {
	// Apps writes the applications row.
	Apps *applications.Store
	// Readiness loads applications with their decrypted draft and checklist.
	Readiness Readiness
	Sealer    *applications.Sealer
	Pricing   PricingCodes
	Queue     *jobs.Queue
	Views     *Views
	// Announcer tells partners of each submission; nil tells no one.
	Announcer Announcer
	Now       func() time.Time
	Log       *slog.Logger
}

// Readiness is what submitting needs of the workspace: an application u may see,
// decrypted, with its readiness checklist. *workspace.Service implements it.
type Readiness interface {
	Checklist(ctx context.Context, u *models.User, id uuid.UUID) (*applications.Record, drafts.Checklist, error)
}

// Submissions holds the use cases of submitting an application: submit and
// watch the push.
type Submissions struct {
	d Deps
}

// NewSubmissions returns the submission use cases.
func NewSubmissions(d Deps) *Submissions {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Submissions{d: d}
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
	rec, list, err := s.d.Readiness.Checklist(ctx, u, id)
	if err != nil {
		return err
	}
	a := rec.App
	if err := applications.CheckEditable(a); err != nil {
		return err
	}
	if !list.Empty() || a.PricingModelID == nil {
		word := "things"
		if list.Count() == 1 {
			word = "thing"
		}
		return apperr.New(apperr.KindInvalid, notReadyMessage, list.Count(), word)
	}
	// The data to send is sealed while the pricing code is read.
	var (
		snapshot models.JSON
		sealErr  error
		sealed   sync.WaitGroup
	)
	sealed.Go(func() { snapshot, sealErr = s.d.Sealer.SealSnapshot(a.ID, UpstreamData(rec.Draft)) })
	code, err := s.d.Pricing.SnapshotCode(ctx, *a.PricingModelID)
	if sealed.Wait(); err != nil {
		return err
	}
	if a.UpstreamApplicationID != nil && a.SubmittedPricingCode != nil && *a.SubmittedPricingCode != code {
		return apperr.New(apperr.KindConflict,
			"The processor's application was started with pricing code “%s”, which cannot change any more. Choose the pricing model with that code again, or ask an admin.",
			*a.SubmittedPricingCode)
	}
	if sealErr != nil {
		return sealErr
	}
	now := s.d.Now().UTC()
	var submission int
	err = s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		submission, err = s.d.Apps.Submit(ctx, tx, a, applications.Submission{PricingCode: code, Snapshot: snapshot, By: u.ID, At: now})
		if errors.Is(err, applications.ErrNoMatch) {
			return errSubmitRace
		}
		if err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, audit.Event{Subject: audit.Application(a.ID), Actor: &u.ID, Action: audit.ActionSubmitted,
			Details: map[string]any{"pricing_code": code, "submission": submission}, At: now}); err != nil {
			return err
		}
		return s.push(ctx, tx, a.ID, submission)
	})
	if err != nil {
		return err
	}
	s.d.Log.Info("application submitted", "application_id", a.ID, "user_id", u.ID, "submission", submission)
	return nil
}

// push enqueues the push of a submission and tells partners of it, in its transaction.
func (s *Submissions) push(ctx context.Context, tx pgx.Tx, id uuid.UUID, submission int) error {
	if _, err := s.d.Queue.InsertTx(ctx, tx, PushArgs{ApplicationID: id, Submission: submission}, nil); err != nil {
		return err
	}
	if s.d.Announcer == nil {
		return nil
	}
	return s.d.Announcer.ApplicationSubmitted(ctx, tx, id)
}
