package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/pricing"
)

// portal is a started portal: its wiring, and what to close when it stops.
type portal struct {
	app          *app.App
	adminCreated bool
	closers      []func(context.Context)
	// took is how long each step of the start took, for the start's log line.
	took phases
}

// phases times the steps of the start, one after the other, as slog arguments:
// "open", 12ms, "migrate", 30ms, ...
type phases struct {
	last time.Time
	args []any
}

// done records the step that ends now.
func (p *phases) done(step string) {
	now := time.Now()
	p.args = append(p.args, step, now.Sub(p.last).Round(100*time.Microsecond).String())
	p.last = now
}

// close releases what start opened, the last opened first.
func (p *portal) close(ctx context.Context) {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i](ctx)
	}
}

// start opens the database with a pool sized to the connection budget,
// migrates, wires the portal and starts its background work. On an error it
// closes what it opened.
func (e env) start(ctx context.Context, cfg *config.Config, log *slog.Logger) (p *portal, err error) {
	p = &portal{took: phases{last: time.Now()}}
	defer func() {
		if err != nil {
			p.close(context.WithoutCancel(ctx))
		}
	}()
	db, err := openBudgeted(ctx, cfg, log)
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, func(context.Context) { db.Close() })
	p.took.done("open")
	// Several instances may start at once; the advisory lock inside MigrateUp
	// lets exactly one apply each migration.
	if err := db.MigrateUp(ctx, log); err != nil {
		return p, err
	}
	p.took.done("migrate")
	// When another replica migrates later (a rolling upgrade), this one renews
	// its connections, whose cached statements would fail once.
	following, stopFollowing := context.WithCancel(context.WithoutCancel(ctx))
	go db.FollowSchemaChanges(following)
	p.closers = append(p.closers, func(context.Context) { stopFollowing() })
	// The embedded default: the sandbox upstream in this process, on its own port.
	if cfg.Upstream.Mode == "sandbox" {
		sb, err := app.StartEmbeddedSandbox(cfg, log)
		if err != nil {
			return p, err
		}
		p.closers = append(p.closers, func(ctx context.Context) { _ = sb.Close(ctx) })
		fmt.Fprintf(e.stdout, "Sandbox upstream on %s (admin: %s/_sandbox/admin, user admin, password %s)\n",
			sb.URL, sb.URL, cfg.Sandbox.AdminToken)
	}
	p.took.done("sandbox")
	if p.app, err = app.Build(ctx, cfg, db, log, app.Options{}); err != nil {
		return p, err
	}
	p.took.done("build")
	if err := e.prepare(ctx, cfg, log, p); err != nil {
		return p, err
	}
	p.took.done("prepare")
	// Background jobs run beside the web server (unless PORTAL_RUN_WORKERS=false).
	if err := p.app.Jobs.Start(ctx); err != nil {
		return p, err
	}
	// The follower of terminal transactions runs with the workers: it
	// resumes, with their original budget, every launch still in flight.
	if cfg.Workers.Run {
		p.app.Terminals.Start(ctx)
	}
	p.took.done("jobs")
	return p, nil
}

// prepare makes the first admin, the example pricing models and, in sandbox
// mode, the sandbox's pricing codes: each is safe on every start.
func (e env) prepare(ctx context.Context, cfg *config.Config, log *slog.Logger, p *portal) error {
	created, password, err := p.app.Auth.EnsureAdmin(ctx, cfg.AdminEmail, cfg.AdminPassword)
	if err != nil {
		return err
	}
	if p.adminCreated = created; created {
		e.printAdmin(cfg.AdminEmail, password)
	}
	if cfg.SeedExamples {
		// Only ever fills an empty table, so it is safe on every start.
		n, err := pricing.SeedExamples(ctx, p.app.DB.Gorm)
		if err != nil {
			return err
		}
		if n > 0 {
			log.Info("example pricing models added", "count", n)
		}
	}
	// In sandbox mode the sandbox is told every current pricing model's code,
	// as the operator issues them at enrollment (a no-op otherwise).
	return p.app.Pricing.IssueCurrentCodes(ctx)
}

// openBudgeted reads the database's connection limits, sizes this replica's
// pool to its share (config.PoolBudget), logs the arithmetic and opens the pool.
func openBudgeted(ctx context.Context, cfg *config.Config, log *slog.Logger) (*database.DB, error) {
	limits, err := database.ReadLimits(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	budget, err := config.PoolBudget(cfg, config.DatabaseLimits(limits))
	if err != nil {
		return nil, err
	}
	if budget.Fits() {
		log.Info("database connection budget", "pool", budget.Pool, "arithmetic", budget.Arithmetic())
	} else {
		log.Warn("database connection budget exceeded: the replicas' pools together outgrow the database's connections",
			"pool", budget.Pool, "arithmetic", budget.Arithmetic())
	}
	return database.Open(ctx, cfg.DatabaseURL, int32(budget.Pool), log)
}
