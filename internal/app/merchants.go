package app

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/upstream/payments"
	"github.com/payportal/portal/internal/upstream/sandboxadmin"
	"github.com/payportal/portal/internal/upstream/terminals"
)

// processorClients are the clients of areas B and C and of the sandbox's
// admin API, built from the configuration; each is nil when not configured.
type processorClients struct {
	Payments     *payments.Client
	Terminals    *terminals.Client
	SandboxAdmin *sandboxadmin.Client
}

// newProcessorClients builds the clients of areas B and C and, in sandbox
// mode only, of the sandbox's admin API.
func newProcessorClients(cfg *config.Config, log *slog.Logger, now func() time.Time) (processorClients, error) {
	var pc processorClients
	var err error
	if u := cfg.Processor.PaymentsBaseURL; u != "" {
		if pc.Payments, err = payments.New(payments.Config{BaseURL: u, AppVersion: Version(), Logger: log.With("component", "payments"), Now: now}); err != nil {
			return pc, fmt.Errorf("PORTAL_PAYMENTS_BASE_URL: %w", err)
		}
	}
	if u := cfg.Processor.TerminalsBaseURL; u != "" {
		if pc.Terminals, err = terminals.New(terminals.Config{BaseURL: u, Logger: log.With("component", "terminals")}); err != nil {
			return pc, fmt.Errorf("PORTAL_TERMINALS_BASE_URL: %w", err)
		}
	}
	if cfg.SandboxAdmin() {
		if pc.SandboxAdmin, err = sandboxadmin.New(sandboxadmin.Config{BaseURL: cfg.Processor.SandboxAdminURL,
			Token: cfg.Sandbox.AdminToken, Logger: log.With("component", "sandbox-admin")}); err != nil {
			return pc, fmt.Errorf("PORTAL_SANDBOX_ADMIN_URL: %w", err)
		}
	}
	return pc, nil
}

// merchantParts are what the merchants room is built from.
type merchantParts struct {
	Config  *config.Config
	Store   *merchants.Store
	Ring    *fieldcrypt.KeyRing
	Auth    *auth.Service
	Outbox  *mail.Outbox
	Queue   *jobs.Queue
	Pricing *pricing.Service
	Clients processorClients
	// Outcomes is the payments ledger, which the merchant's history asks
	// what became of each payment.
	Outcomes audit.Outcomes
	// Announcer tells partners of boardings and suspensions.
	Announcer merchants.Announcer
	Now       func() time.Time
	Log       *slog.Logger
}

// wireMerchants builds the merchants service, registers its hand-over job
// and, in sandbox mode, makes pricing models' codes issued at the sandbox.
func wireMerchants(p merchantParts) *merchants.Service {
	d := merchants.Deps{
		Store: p.Store, Ring: p.Ring, Auth: p.Auth, Outbox: p.Outbox, Queue: p.Queue,
		PaymentsURL: p.Config.Processor.PaymentsBaseURL, TerminalsURL: p.Config.Processor.TerminalsBaseURL,
		PublicURL: p.Config.PublicURL, ResellerName: p.Config.ResellerName, Announcer: p.Announcer,
		Now: p.Now, Log: p.Log.With("component", "merchants"), Outcomes: p.Outcomes,
	}
	// A nil client in an interface would not read as nil.
	if p.Clients.Payments != nil {
		d.Payments = p.Clients.Payments
	}
	if p.Clients.Terminals != nil {
		d.Terminals = p.Clients.Terminals
	}
	if p.Clients.SandboxAdmin != nil {
		d.HandOver = p.Clients.SandboxAdmin
		p.Pricing.IssueCodesThrough(p.Queue)
		jobs.Register(p.Queue, pricing.NewIssueCodeWorker(p.Clients.SandboxAdmin))
	}
	svc := merchants.NewService(d)
	jobs.Register(p.Queue, merchants.NewHandOverWorker(svc))
	return svc
}
