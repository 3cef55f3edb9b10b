package payments

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// Upstream is what the payments room calls of the direct payment API: the
// methods of *upstream.Client it uses.
type Upstream interface {
	Sale(ctx context.Context, acct upstream.Account, p upstream.CardPayment) (*upstream.Transaction, error)
	Authorize(ctx context.Context, acct upstream.Account, p upstream.CardPayment) (*upstream.Transaction, error)
	Force(ctx context.Context, acct upstream.Account, f upstream.Force) (*upstream.Transaction, error)
	Void(ctx context.Context, acct upstream.Account, v upstream.VoidRequest) (*upstream.Transaction, error)
	Adjust(ctx context.Context, acct upstream.Account, a upstream.Adjustment) (*upstream.Transaction, error)
	TokenizedRefund(ctx context.Context, acct upstream.Account, r upstream.TokenizedRefund) (*upstream.Transaction, error)
	TokenizedPayment(ctx context.Context, acct upstream.Account, p upstream.TokenizedPayment) (*upstream.Transaction, error)
	TokenizedAuthorization(ctx context.Context, acct upstream.Account, p upstream.TokenizedPayment) (*upstream.Transaction, error)
	ACHSale(ctx context.Context, acct upstream.Account, p upstream.ACHPayment) (*upstream.Transaction, error)
	TokenizeCard(ctx context.Context, acct upstream.Account, t upstream.CardTokenize) (*upstream.Transaction, error)
	TokenizeBankAccount(ctx context.Context, acct upstream.Account, t upstream.ACHTokenize) (*upstream.Transaction, error)
	Get(ctx context.Context, acct upstream.Account, externalTransactionID string) (*upstream.Transaction, error)
}

// Outbox queues e-mail (receipts) in the caller's transaction.
type Outbox interface {
	Enqueue(ctx context.Context, tx pgx.Tx, m mail.Message) (*mail.Message, error)
}

// Config holds the payments room's settings (PORTAL_PAYMENTS_*).
type Config struct {
	// DuplicateWindow: a card payment with the same last four and total as
	// one made this recently asks for an explicit "charge again".
	DuplicateWindow time.Duration
	// CheckGrace: an unknown outcome becomes "not charged" only when every
	// read-back until this long after the request found nothing.
	CheckGrace time.Duration
	// CheckEvery is the wait between read-backs of an unknown outcome; the
	// first runs this long after the request began, in case the request
	// itself never finishes (a crash).
	CheckEvery time.Duration
	// CallTimeout bounds one upstream write, retries included; past it the
	// outcome is unknown and the background check takes over.
	CallTimeout time.Duration
	// ResellerName signs the receipts.
	ResellerName string
}

// withDefaults fills zero settings.
func (c Config) withDefaults() Config {
	c.DuplicateWindow = or(c.DuplicateWindow, 10*time.Minute)
	c.CheckGrace = or(c.CheckGrace, 10*time.Minute)
	c.CheckEvery = or(c.CheckEvery, 30*time.Second)
	c.CallTimeout = or(c.CallTimeout, 45*time.Second)
	return c
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Deps is what the payments room is built from.
type Deps struct {
	Pool      *pgxpool.Pool
	Ring      *fieldcrypt.KeyRing
	Ledger    *Ledger
	Upstream  Upstream
	Merchants Merchants
	Queue     *jobs.Queue
	Outbox    Outbox
	Config    Config
	Now       func() time.Time
	Log       *slog.Logger
}

// Service is the virtual terminal's use cases.
type Service struct {
	pool      *pgxpool.Pool
	ring      *fieldcrypt.KeyRing
	ledger    *Ledger
	up        Upstream
	merchants Merchants
	queue     *jobs.Queue
	outbox    Outbox
	tokens    *FormTokens
	cfg       Config
	now       func() time.Time
	log       *slog.Logger
}

// NewService builds the service and registers the background check of
// unknown outcomes on d.Queue (so it must be built before the queue starts).
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{pool: d.Pool, ring: d.Ring, ledger: d.Ledger, up: d.Upstream, merchants: d.Merchants,
		queue: d.Queue, outbox: d.Outbox, tokens: NewFormTokens(d.Ring, d.Now), cfg: d.Config.withDefaults(),
		now: d.Now, log: d.Log}
	jobs.Register(d.Queue, &checkWorker{s: s})
	return s
}

// Ledger returns the ledger the service writes.
func (s *Service) Ledger() *Ledger { return s.ledger }

// Config returns the settings in force.
func (s *Service) Config() Config { return s.cfg }

// inTx runs fn in one transaction.
func (s *Service) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// call runs one upstream write for intent t: detached from the browser's
// request (a closed tab must not leave an unknown outcome behind) and bounded
// by CallTimeout.
func (s *Service) call(ctx context.Context, fn func(ctx context.Context) (*upstream.Transaction, error)) (*upstream.Transaction, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CallTimeout)
	defer cancel()
	return fn(cctx)
}

// finish records what became of t's upstream call and runs then, in the same
// transaction, when the answer took (it did not when the background check
// answered first). It returns the transaction as it now stands.
func (s *Service) finish(ctx context.Context, t *Transaction, ut *upstream.Transaction, callErr error,
	then func(tx pgx.Tx, t *Transaction) error) (*Transaction, error) {
	a := s.answerOf(t, ut, callErr)
	var out *Transaction
	var err error
	if then == nil && t.ParentID == nil {
		// Nothing else to do with it: the answer and its timeline entry are
		// one statement, which needs no transaction of its own.
		out, err = s.ledger.answerAlone(context.WithoutCancel(ctx), t, a)
		if errors.Is(err, ErrNotOpen) {
			err = nil
		}
	} else {
		err = s.inTx(context.WithoutCancel(ctx), func(tx pgx.Tx) error {
			got, err := s.ledger.Answer(ctx, tx, t.ID, a)
			if err != nil {
				if got != nil {
					out = got
					return nil
				}
				return err
			}
			out = got
			if then != nil {
				return then(tx, got)
			}
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("record the answer of %s: %w", t.ID, err)
	}
	switch {
	case callErr != nil && out.Status.Open():
		s.log.Warn("payment outcome unknown; checking in the background", "transaction_id", t.ID, "kind", t.Kind, "err", callErr)
	case callErr != nil:
		s.log.Warn("payment request not carried out", "transaction_id", t.ID, "kind", t.Kind, "err", callErr)
	}
	return out, nil
}

// accountOf is the transaction's merchant as background work sees it.
func (s *Service) accountOf(ctx context.Context, merchantID uuid.UUID) (upstream.Account, error) {
	m, err := s.merchants.ForSystem(ctx, merchantID)
	if err != nil {
		return upstream.Account{}, err
	}
	return m.Account, nil
}
