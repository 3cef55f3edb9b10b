package terminals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// Cloud is what the room needs of the upstream terminal cloud client.
type Cloud interface {
	Config(ctx context.Context, loc upstream.Location) (*upstream.LocationConfig, error)
	Launch(ctx context.Context, loc upstream.Location, deviceName string, tx upstream.Transaction) (upstream.Launched, error)
}

// Deps are what the room is built from.
type Deps struct {
	Pool      *pgxpool.Pool
	Merchants Merchants
	Ledger    Ledger
	// Cloud launches transactions and downloads configurations; its
	// PollPolicy (every second, five-minute budget) follows results.
	Cloud *upstream.Client
	// Recheck is a client of the same cloud with a slow PollPolicy, for the
	// background rechecks of unknown launches (see RecheckPolicy).
	Recheck *upstream.Client
	// Clock is the clock of the cloud clients: leases, launch times and
	// records all read it, so a test moves everything with one ManualClock.
	// Nil: the wall clock.
	Clock  upstream.Clock
	Follow FollowConfig
	// Announcer tells partners of finished launches; nil tells no one.
	Announcer Announcer
	Log       *slog.Logger
}

// RecheckPolicy is the slow schedule of an unknown launch's rechecks: every
// 30 s, then every 5 minutes after the first 10, for a day from the launch.
func RecheckPolicy() upstream.PollPolicy {
	return upstream.PollPolicy{FirstPoll: 30 * time.Second, Interval: 30 * time.Second, BackoffAfter: 10 * time.Minute,
		MaxInterval: 5 * time.Minute, Budget: DefaultRecheckFor}
}

// Service is the room's use cases and its follower.
type Service struct {
	store     *Store
	merchants Merchants
	ledger    Ledger
	cloud     Cloud
	clock     upstream.Clock
	log       *slog.Logger
	follow    *follower
	announcer Announcer
}

// NewService builds the room. Start begins following launches.
func NewService(d Deps) (*Service, error) {
	if d.Pool == nil || d.Merchants == nil || d.Ledger == nil {
		return nil, errors.New("terminals: the room needs a pool, the merchants and the ledger")
	}
	var cloud Cloud = d.Cloud
	if d.Cloud == nil || d.Recheck == nil {
		// No terminal cloud configured: the pages work, launches and
		// downloads say what is missing, and the pollers follow nothing.
		cloud = noCloud{}
		placeholder, err := upstream.New(upstream.Config{BaseURL: "http://terminal-cloud.invalid"})
		if err != nil {
			return nil, err
		}
		d.Cloud, d.Recheck = placeholder, placeholder
	}
	if d.Clock == nil {
		d.Clock = upstream.SystemClock{}
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: NewStore(d.Pool), merchants: d.Merchants, ledger: d.Ledger, cloud: cloud,
		clock: d.Clock, log: d.Log, announcer: d.Announcer}
	f, err := newFollower(s, d.Cloud, d.Recheck, d.Follow)
	if err != nil {
		return nil, fmt.Errorf("terminals: %w", err)
	}
	s.follow = f
	return s, nil
}

// Store returns the room's store (tests, the ledger's joins).
func (s *Service) Store() *Store { return s.store }

// Start begins following launches: this process's pollers, its leases, and
// the take-over of launches whose process died (every launch still open
// when the portal last stopped resumes here with its original budget).
func (s *Service) Start(ctx context.Context) { s.follow.start(ctx) }

// Started is closed once the follower's first take-over scan has run.
func (s *Service) Started() <-chan struct{} { return s.follow.started }

// Stop ends the following; the leases are released so that the next
// process resumes at once.
func (s *Service) Stop(ctx context.Context) error { return s.follow.stop(ctx) }

// Following returns how many launches this process polls (fast and slow).
func (s *Service) Following() (fast, slow int) {
	return s.follow.fast.Watching(), s.follow.slow.Watching()
}

// access loads what u may do with a merchant's terminals.
func (s *Service) access(ctx context.Context, u *models.User, merchantID uuid.UUID) (*Access, error) {
	if u == nil {
		return nil, models.ErrNotFound
	}
	a, err := s.merchants.TerminalAccess(ctx, u, merchantID)
	if err != nil {
		if notFound(err) {
			return nil, models.ErrNotFound
		}
		return nil, err
	}
	return a, nil
}

// cloudLocation is the location of a merchant as the client takes it, for
// the follower.
func (s *Service) cloudLocation(ctx context.Context, merchantID uuid.UUID, locationID string) (upstream.Location, error) {
	m, err := s.merchants.TerminalMerchant(ctx, merchantID)
	if err != nil {
		return upstream.Location{}, err
	}
	loc, ok := m.Location(locationID)
	if !ok {
		return upstream.Location{}, fmt.Errorf("location %s of merchant %s: %w", locationID, merchantID, models.ErrNotFound)
	}
	return loc.Cloud(), nil
}

// inTx runs fn in one transaction of the room's pool.
func (s *Service) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.store.InTx(ctx, fn)
}

// errNoCloud refuses what needs the terminal cloud when none is configured.
var errNoCloud = apperr.New(apperr.KindUnavailable, "No terminal cloud is configured for this portal (PORTAL_TERMINALS_BASE_URL): nothing can be sent to a terminal.")

// noCloud is the cloud of a portal without one.
type noCloud struct{}

func (noCloud) Config(context.Context, upstream.Location) (*upstream.LocationConfig, error) {
	return nil, errNoCloud
}

func (noCloud) Launch(context.Context, upstream.Location, string, upstream.Transaction) (upstream.Launched, error) {
	return upstream.Launched{}, errNoCloud
}

// configured reports whether a terminal cloud is configured.
func (s *Service) configured() error {
	if _, none := s.cloud.(noCloud); none {
		return errNoCloud
	}
	return nil
}
