package merchants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/upstream/sandboxadmin"
)

// In sandbox mode a rehearsal goes from application to first payment with
// no typing: after boarding, a job fetches the merchant's credentials from
// the sandbox's admin API (as the operator's integration specialists would
// hand them over), retrying until the sandbox answers. It never overwrites
// what an admin entered. Outside sandbox mode (HandOver nil) nothing is
// fetched: admins enter what the operator hands over.

// HandOverArgs is the job that fetches one merchant's credentials.
type HandOverArgs struct {
	MerchantID uuid.UUID `json:"merchant_id"`
}

// Kind names the job in River.
func (HandOverArgs) Kind() string { return "merchant_sandbox_credentials" }

// HandOverMaxAttempts bounds the job's runs (about an hour and a half with
// the queue's default backoff).
const HandOverMaxAttempts = 10

// InsertOpts bounds the attempts. The job is not unique: boarding queues it
// once (a merchant is created once), an admin's "fetch again" may queue
// another while one is finishing, and two runs fill the same gaps once.
func (HandOverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: HandOverMaxAttempts}
}

// queueHandOver queues the hand-over of a new merchant's credentials in
// sandbox mode.
func (s *Service) queueHandOver(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	if s.d.HandOver == nil || s.d.Queue == nil {
		return nil
	}
	if _, err := s.d.Queue.InsertTx(ctx, tx, HandOverArgs{MerchantID: id}, nil); err != nil {
		return err
	}
	return s.d.Store.setSandboxFetch(ctx, tx, id, fetchPending, "", s.now())
}

// FetchAgain queues the sandbox's hand-over again (an admin, in sandbox
// mode), for a hand-over that failed or credentials removed since.
func (s *Service) FetchAgain(ctx context.Context, u *models.User, id uuid.UUID) error {
	_, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return err
	}
	if !v.Admin {
		return errAdminOnly
	}
	if s.d.HandOver == nil {
		return errNoSandbox
	}
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error { return s.queueHandOver(ctx, tx, id) })
}

var errNoSandbox = errors.New("merchants: credentials are fetched only from a sandbox")

// HandOverWorker runs the hand-over jobs. Running one twice is harmless: it
// fills only what is missing.
type HandOverWorker struct {
	river.WorkerDefaults[HandOverArgs]
	s *Service
}

// NewHandOverWorker returns the worker; register it with jobs.Register.
func NewHandOverWorker(s *Service) *HandOverWorker { return &HandOverWorker{s: s} }

// Timeout bounds one run.
func (w *HandOverWorker) Timeout(*river.Job[HandOverArgs]) time.Duration { return time.Minute }

// Work fetches the credentials and stores what is missing.
func (w *HandOverWorker) Work(ctx context.Context, job *river.Job[HandOverArgs]) error {
	s := w.s
	if s.d.HandOver == nil {
		return nil
	}
	m, err := s.d.Store.Get(ctx, nil, job.Args.MerchantID)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	upID := ""
	if m.UpstreamApplicationID != nil {
		upID = *m.UpstreamApplicationID
	}
	creds, err := s.d.HandOver.Credentials(ctx, upID)
	if err != nil {
		last := job.Attempt >= job.MaxAttempts
		if sandboxadmin.IsTemporary(err) && !last {
			s.d.Log.Warn("sandbox hand-over will be retried", "merchant_id", m.ID, "attempt", job.Attempt, "err", err)
			return err
		}
		msg := handOverWords(err, job.Attempt)
		if rerr := s.handOverFailed(context.WithoutCancel(ctx), m.ID, msg); rerr != nil {
			return errors.Join(err, rerr)
		}
		return river.JobCancel(err)
	}
	return s.storeHandOver(ctx, m, creds)
}

// storeHandOver keeps what the sandbox handed over, where nothing is set.
func (s *Service) storeHandOver(ctx context.Context, m *Merchant, c *sandboxadmin.Credentials) error {
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if c.Payments != nil && c.Payments.OID != "" && c.Payments.Token != "" {
			sealed, err := s.seal(m.ID, aadPaymentToken, c.Payments.Token)
			if err != nil {
				return err
			}
			stored, err := s.d.Store.putPaymentAccount(ctx, tx, m.ID, c.Payments.OID, sealed, last4(c.Payments.Token), SourceSandbox, nil, now, true)
			if err != nil {
				return err
			}
			if stored {
				if err := s.recordSet(ctx, tx, m.ID, nil, areaPayments, SourceSandbox, now); err != nil {
					return err
				}
			}
		}
		if c.Terminals != nil && c.Terminals.APIKey != "" {
			if err := s.handOverTerminals(ctx, tx, m.ID, c.Terminals, now); err != nil {
				return err
			}
		}
		return s.d.Store.setSandboxFetch(ctx, tx, m.ID, fetchDone, "", now)
	})
}

// handOverTerminals keeps the terminal key, if none is set, and adds the
// locations the merchant lacks, in test mode (sandbox locations are test
// locations).
func (s *Service) handOverTerminals(ctx context.Context, tx pgx.Tx, id uuid.UUID, c *sandboxadmin.TerminalCredentials, now time.Time) error {
	sealed, err := s.seal(id, aadTerminalKey, c.APIKey)
	if err != nil {
		return err
	}
	stored, err := s.d.Store.putTerminalAccount(ctx, tx, id, sealed, last4(c.APIKey), SourceSandbox, nil, now, true)
	if err != nil {
		return err
	}
	if stored {
		if err := s.recordSet(ctx, tx, id, nil, areaTerminals, SourceSandbox, now); err != nil {
			return err
		}
	}
	for _, l := range c.Locations {
		name := strings.TrimSpace(l.Name)
		if name == "" {
			name = l.LocationID
		}
		err := s.d.Store.addLocation(ctx, tx, Location{ID: uuid.New(), MerchantID: id, LocationID: l.LocationID, Name: name, TestMode: true, CreatedAt: now})
		if errors.Is(err, errLocationTaken) {
			continue
		}
		if err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Action: audit.ActionLocationAdded,
			Details: audit.Details{Location: name + " (" + l.LocationID + ")", Source: SourceSandbox}, At: now}); err != nil {
			return err
		}
	}
	return nil
}

// handOverFailed records a hand-over that stopped, for the merchant page.
func (s *Service) handOverFailed(ctx context.Context, id uuid.UUID, msg string) error {
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.setSandboxFetch(ctx, tx, id, fetchFailed, msg, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Action: audit.ActionCredentialsFetchFailed,
			Details: audit.Details{Message: msg}, At: now})
	})
}

// handOverWords says why the hand-over stopped.
func handOverWords(err error, attempts int) string {
	switch {
	case errors.Is(err, sandboxadmin.ErrUnauthorized):
		return "The sandbox refused the portal's admin token (PORTAL_SANDBOX_ADMIN_TOKEN)."
	case errors.Is(err, sandboxadmin.ErrNotFound):
		return "The sandbox does not know this merchant's application."
	case errors.Is(err, sandboxadmin.ErrNotBoarded):
		return fmt.Sprintf("The sandbox still reports the application as not boarded after %d attempts.", attempts)
	}
	var e *sandboxadmin.Error
	if errors.As(err, &e) && e.StatusCode == 0 {
		return fmt.Sprintf("The sandbox did not answer (%d attempts).", attempts)
	}
	if errors.As(err, &e) {
		return fmt.Sprintf("The sandbox answered HTTP %d (%d attempts).", e.StatusCode, attempts)
	}
	return "The credentials could not be fetched."
}
