package app

import (
	"context"
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
		Follow: terminals.FollowConfig{Lease: p.Config.Terminals.Lease, MaxInFlight: p.Config.Terminals.MaxReads},
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

// terminalMerchants is the merchants room as the terminals room sees it.
type terminalMerchants struct{ svc *merchants.Service }

// TerminalAccess loads a merchant u may see and u's rights on its
// terminals: the reseller's people (admins, the owning rep) install
// terminals; a member uses them with the rights of their membership, all of
// which move money and so need two-step sign-in to be on.
func (a terminalMerchants) TerminalAccess(ctx context.Context, u *models.User, id uuid.UUID) (*terminals.Access, error) {
	m, v, locs, err := a.svc.VisibleTerminals(ctx, u, id)
	if err != nil {
		return nil, err
	}
	acc := &terminals.Access{Merchant: terminalMerchant(m, locs), Staff: v.Staff()}
	if v.Member && u.MFAEnabled() {
		acc.UseTerminals = v.Permissions.Has(merchants.PermUseTerminals)
		acc.Refund = v.Permissions.Has(merchants.PermRefund)
		acc.Void = v.Permissions.Has(merchants.PermVoid)
		acc.Adjust = v.Permissions.Has(merchants.PermCaptureAdjust)
	}
	return acc, nil
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
