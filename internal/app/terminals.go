package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// terminalParts are what the terminals room is built from.
type terminalParts struct {
	Config    *config.Config
	Pool      *pgxpool.Pool
	Merchants *merchants.Service
	Ring      *fieldcrypt.KeyRing
	// Clock is the terminal clients' clock (tests share a manual one with
	// the sandbox); nil is the wall clock.
	Clock upstream.Clock
	// Announcer tells partners of finished launches and the ledger's answers.
	Announcer announcer
	Now       func() time.Time
	Log       *slog.Logger
}

// wireTerminals builds the terminals room: two clients of the terminal
// cloud (results every PORTAL_TERMINALS_POLL_INTERVAL within the budget;
// slow rechecks of unknown outcomes), the ledger it writes to, and the
// merchants' access adapted to what it declares.
func wireTerminals(p terminalParts) (*terminals.Service, error) {
	log := p.Log.With("component", "terminals")
	d := terminals.Deps{
		Pool: p.Pool, Merchants: terminalMerchants{p.Merchants}, Ledger: payments.NewLedger(p.Pool, p.Ring, p.Now).AnnounceTo(p.Announcer),
		Clock: p.Clock, Announcer: p.Announcer, Log: log,
		Follow: terminals.FollowConfig{Lease: p.Config.Terminals.Lease, MaxInFlight: p.Config.Terminals.MaxReads,
			Follower: followerName(p.Config.Instance)},
	}
	if u := p.Config.Processor.TerminalsBaseURL; u != "" {
		var err error
		poll := upstream.PollPolicy{Interval: p.Config.Terminals.PollInterval}
		if d.Cloud, err = upstream.New(upstream.Config{BaseURL: u, Clock: p.Clock, Logger: log, Poll: poll}); err != nil {
			return nil, fmt.Errorf("PORTAL_TERMINALS_BASE_URL: %w", err)
		}
		if d.Recheck, err = upstream.New(upstream.Config{BaseURL: u, Clock: p.Clock, Logger: log, Poll: terminals.RecheckPolicy()}); err != nil {
			return nil, fmt.Errorf("PORTAL_TERMINALS_BASE_URL: %w", err)
		}
	}
	return terminals.NewService(d)
}

// terminalMerchants is the merchants room as the terminals room sees it. It
// converts types only: who may do what is the merchants room's
// (merchants.TerminalRights, Authorize's rule).
type terminalMerchants struct{ svc *merchants.Service }

// TerminalAccess loads a merchant u may see and u's rights on its terminals.
func (a terminalMerchants) TerminalAccess(ctx context.Context, u *models.User, id uuid.UUID) (*terminals.Access, error) {
	m, r, locs, err := a.svc.VisibleTerminals(ctx, u, id)
	if err != nil {
		return nil, err
	}
	return &terminals.Access{Merchant: terminalMerchant(m, locs), Staff: r.Install,
		UseTerminals: r.Use, Refund: r.Refund, Void: r.Void, Adjust: r.Adjust}, nil
}

// TerminalMerchant loads a merchant with its locations and API key.
func (a terminalMerchants) TerminalMerchant(ctx context.Context, id uuid.UUID) (*terminals.Merchant, error) {
	m, locs, err := a.svc.TerminalLocations(ctx, id)
	if err != nil {
		return nil, err
	}
	return terminalMerchant(m, locs), nil
}

// terminalMerchant is the merchant as the terminals room sees it.
func terminalMerchant(m *merchants.Merchant, locs []merchants.TerminalLocation) *terminals.Merchant {
	out := &terminals.Merchant{ID: m.ID, Name: m.Name, Suspended: m.Suspended()}
	for _, l := range locs {
		out.Locations = append(out.Locations, terminals.Location{ID: l.LocationID, Name: l.Name, TestMode: l.TestMode, APIKey: l.APIKey})
	}
	return out
}

// followerName names this process's terminal follower in its leases: the
// instance, and a random part so a restarted instance never renews a lease of
// the process before it.
func followerName(instance string) string {
	if instance == "" {
		return ""
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return instance + "-" + hex.EncodeToString(b)
}
