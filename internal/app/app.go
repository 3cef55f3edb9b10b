// Package app wires the portal together: it builds every dependency explicitly,
// in one place, and hands each one to the code that needs it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/payportal/portal/assets"
	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/imports"
	"github.com/payportal/portal/internal/insights"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/keys"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/partnerapi"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/reminders"
	"github.com/payportal/portal/internal/signals"
	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/terminals"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
	terminalsapi "github.com/payportal/portal/internal/upstream/terminals"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/internal/web"
	"github.com/payportal/portal/internal/webhooks"
	"github.com/payportal/portal/internal/workspace"
	"github.com/payportal/portal/views"
)

// Options are the parts of the wiring that tests replace.
type Options struct {
	// Now is the clock of sign-in throttling and of the domain services.
	Now func() time.Time
	// Throttle overrides the sign-in throttling limits.
	Throttle *auth.ThrottleLimits
	// JobPollInterval and JobRetryDelay make background jobs react and retry
	// quickly in tests; zero values keep the production behaviour.
	JobPollInterval time.Duration
	JobRetryDelay   func(attempt int) time.Duration
	// Upstream replaces the client built from cfg.Upstream.
	Upstream *upstream.Client
	// TerminalsClock is the clock of the terminal cloud clients and of the
	// following of terminal transactions; tests share a manual one with the
	// sandbox. Nil is the wall clock.
	TerminalsClock terminalsapi.Clock
	// PushRetryDelay shortens the wait between a document's upload attempts
	// during a push (tests); zero keeps the uploads proxy's default.
	PushRetryDelay time.Duration
	// SignalsEvery is how old the alert signals' reading may be before a scrape
	// reads again (signals.DefaultEvery when zero; negative: every scrape).
	SignalsEvery time.Duration
	// WebhookRetryDelay replaces the partner webhooks' three-day delivery schedule
	// (tests); nil keeps it.
	WebhookRetryDelay func(attempt int) time.Duration
}

// App is the assembled portal.
type App struct {
	Config   *config.Config
	DB       *database.DB
	Log      *slog.Logger
	Sessions *scs.SessionManager
	Auth     *auth.Service
	Jobs     *jobs.Queue // background jobs; the caller starts and stops the workers
	Outbox   *mail.Outbox
	// Upstream is the client of the upstream account application API.
	Upstream *upstream.Client
	Pricing  *pricing.Service
	// Documents attaches and serves supporting documents; its Store and
	// DocumentStorage feed the submission's document proxy.
	Documents       *documents.Service
	DocumentStorage documents.Storage
	// Store is the one store of the applications row.
	Store *applications.Store
	// Applications holds the sales reps' workspace; Sealer encrypts and decrypts
	// their personal data (the submission decrypts drafts with it).
	Applications *workspace.Service
	Sealer       *applications.Sealer
	// Dashboard lists applications.
	Dashboard *dashboard.Service
	// Submissions submits applications and follows their push upstream.
	Submissions *submission.Submissions
	// Reminders sends the reminders tied to the processor's state.
	Reminders *reminders.Service
	// Imports imports drafts from CSV files.
	Imports *imports.Service
	// Merchants are the boarded merchants, their credentials and people.
	Merchants *merchants.Service
	// Payments is the virtual terminal and the ledger.
	Payments *payments.Service
	// Terminals launches and follows transactions on card terminals; the
	// caller starts and stops its follower with the job workers.
	Terminals *terminals.Service
	// Keys tells what is sealed under which key of the ring and re-seals it.
	Keys *keys.Service
	// Webhooks are the partners' endpoints and the deliveries of their events.
	Webhooks *webhooks.Service
	// DocumentProxy streams stored documents to the upstream's presigned URLs, as
	// pushes do (nil without an upstream); its benchmark uses it.
	DocumentProxy *submission.Proxy
	// APIKeys creates, lists, revokes and authenticates the partner API's keys.
	APIKeys *apikeys.Service
	Handler *echo.Echo
}

// Build assembles the portal on an open, migrated database.
func Build(ctx context.Context, cfg *config.Config, db *database.DB, log *slog.Logger, opts Options) (*App, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	limits := auth.DefaultThrottleLimits
	if opts.Throttle != nil {
		limits = *opts.Throttle
	}

	static, err := web.NewStatic(assets.FS)
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	sessions := auth.NewSessionManager(db.Pool, cfg.SessionLifetime)
	views, err := view.New(views.FS, viewFuncs(static), sessions, cfg.ResellerName)
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// What an operator pages on (deploy/prometheus/alerts.yml).
	alertSignals := signals.New(signals.Deps{Pool: db.Pool, Now: now, Log: log, Every: opts.SignalsEvery,
		RefusalReasons: []string{handoff.RefusedToken, handoff.RefusedMalformed, handoff.RefusedInvalid}})
	registry.MustRegister(alertSignals.Collectors()...)

	upstreamClient := opts.Upstream
	if upstreamClient == nil && cfg.Upstream.BaseURL != "" {
		if upstreamClient, err = NewUpstreamClient(cfg.Upstream, log, now); err != nil {
			return nil, err
		}
	}
	pricingService := pricing.NewService(db.Gorm, now, log)
	// The key ring, the documents encrypted at rest under it, and the check that refuses
	// to start when a value is sealed under a key the ring lacks.
	sealed, err := openSealing(ctx, cfg, db, log, now)
	if err != nil {
		return nil, err
	}
	if err := sealed.keys.Check(ctx); err != nil {
		return nil, err
	}
	// Which key seals, per replica: a roll-out of a new key checks this line on each.
	log.Info("key ring", "active", sealed.ring.ActiveKeyID(), "keys", sealed.ring.KeyIDs())
	ring, docStorage, docStore, docLimits, keyService := sealed.ring, sealed.storage, sealed.docs, sealed.limits, sealed.keys
	appStore := applications.NewStore(db.Pool)
	appStore.SealLinks(ring)
	docService := documents.NewService(appStore, pricingService, docStore, docStorage, docLimits, now, log)
	sealer := applications.NewSealer(ring)
	// Who must sign in in two steps follows from merchant permissions.
	merchantStore := merchants.NewStore(db.Pool)
	clients, err := newProcessorClients(cfg, log, now)
	if err != nil {
		return nil, err
	}

	queue, sender, outbox, err := wireQueueAndMail(ctx, cfg, db, opts, ring, appStore, now, log)
	if err != nil {
		return nil, err
	}
	authService := auth.NewService(db, auth.Options{
		Limits: &limits, KeyRing: ring, Issuer: cfg.ResellerName, Now: now, Log: log, HashSlots: cfg.PasswordHashConcurrency,
		MFAPolicy:   merchantStore.MFAPolicy,
		Invitations: invitationMailer{outbox: outbox, publicURL: cfg.PublicURL, resellerName: cfg.ResellerName},
	})
	// Partner webhooks: every room's news goes through their announcer, in the
	// transaction of the change.
	webhookService, news := wireWebhooks(webhookParts{Config: cfg, Pool: db.Pool, Ring: ring, Queue: queue, Outbox: outbox,
		Registry: registry, RetryDelay: opts.WebhookRetryDelay, Now: now, Log: log})
	merchantService := wireMerchants(merchantParts{
		Config: cfg, Store: merchantStore, Ring: ring, Auth: authService, Outbox: outbox, Queue: queue,
		Pricing: pricingService, Clients: clients, Now: now, Log: log, Outcomes: payments.NewLedger(db.Pool, ring, now),
		Announcer: news,
	})
	// Payments: the virtual terminal and the one ledger.
	paymentService := wirePayments(paymentParts{Config: cfg, DB: db, Ring: ring, Merchants: merchantService,
		Client: clients.Payments, Queue: queue, Outbox: outbox, Announcer: news, Now: now, Log: log})
	terminalService, err := wireTerminals(terminalParts{Config: cfg, Pool: db.Pool, Merchants: merchantService, Ring: ring,
		Clock: opts.TerminalsClock, Announcer: news, Now: now, Log: log})
	if err != nil {
		return nil, err
	}
	submissionViews := submission.NewViews(docStore, outbox, cfg.PublicURL).WithLinks(appStore)
	workspaceService := workspace.NewService(appStore, sealer, workspace.Options{
		Pricing: pricingService, Documents: docStore, DocumentTitles: documentTitles(),
		Submissions: submissionViews, Merchants: merchantStore, Now: now, Log: log,
	})
	// The hand-off: the merchant's e-mail, its tracking link and the upstream's
	// status webhooks.
	mailer := handoff.NewMailer(appStore, cfg.PublicURL, cfg.ResellerName)
	// Boarding makes a merchant: the merchants room follows every status.
	statuses := handoff.NewUpstreamStatusRecorder(appStore, now, merchantService).AnnounceTo(news)
	resender := handoff.NewResender(handoff.ResendDeps{Apps: appStore, Mailer: mailer, Outbox: outbox, Now: now, Log: log})
	// Submitting and the push upstream: the push worker and its reconciler.
	submissions, documentProxy := wireSubmissions(submissionParts{
		Apps: appStore, Docs: docStore, Queue: queue, Readiness: workspaceService, Views: submissionViews,
		Sealer: sealer, Pricing: pricingService, Outbox: outbox, Handoff: mailer, Statuses: statuses,
		Upstream: upstreamClient, Storage: docStorage, Announcer: news,
		UploadRetryDelay: opts.PushRetryDelay, Now: now, Log: log,
	})
	dashboardService := dashboard.NewService(db.Pool, appStore)
	db.WarmConnections(ctx, dashboard.WarmConnection)
	importService := wireImports(queue, imports.Deps{
		Apps: appStore, Sealer: sealer, Ring: ring, Pricing: pricingService, Queue: queue, Now: now, Log: log,
	})
	reminderService := wireReminders(queue, reminders.Deps{
		Apps: appStore, Merchants: resender, Outbox: outbox, PublicURL: cfg.PublicURL, ResellerName: cfg.ResellerName, Now: now, Log: log,
	})
	jobs.Register(queue, auth.NewPruneLoginFailuresWorker(db.Gorm, now))
	queue.AddPeriodic(auth.PruneLoginFailuresPeriodicJob())
	// Documents stored before encryption at rest, or under a key rotated out, are
	// rewritten on start-up, resumably.
	jobs.Register(queue, documents.NewEncryptAtRestWorker(docStore, docStorage, log))
	queue.AddPeriodic(documents.EncryptAtRestPeriodicJob())
	webhook := handoff.NewWebhookHandler(statuses, cfg.Upstream.WebhookToken, log)
	webhook.CountRefusals(alertSignals.WebhookRefused)
	api, err := wireAPI(apiParts{Config: cfg, DB: db, Ring: ring, Queue: queue, Views: views, Static: static, Now: now, Log: log,
		Rooms: partnerapi.Deps{Apps: appStore, Workspace: workspaceService, Documents: docService, Submissions: submissions,
			Resender: resender, Dashboard: dashboardService, Merchants: merchantService, Payments: paymentService, Pricing: pricingService}})
	if err != nil {
		return nil, err
	}
	handler := web.New(web.Deps{
		Config:           cfg,
		DB:               db,
		Log:              log,
		Sessions:         sessions,
		Views:            views,
		Static:           static,
		Registry:         registry,
		AuthService:      authService,
		Auth:             auth.NewHandlers(authService, sessions, views, cfg.SessionIdleTimeout),
		Pricing:          pricing.NewHandlers(pricingService, views),
		Outbox:           mail.NewHandlers(outbox, views, sender != nil),
		Webhook:          webhook,
		Tracking:         handoff.NewOpenTracker(appStore, now, log),
		Handoff:          handoff.NewHandlers(resender, views),
		Documents:        documents.NewHandlers(docService, views, log),
		Dashboard:        dashboard.NewHandlers(dashboardService, views),
		Applications:     workspace.NewHandlers(workspaceService, views),
		Submissions:      submission.NewHandlers(submissions, views),
		Reminders:        reminders.NewHandlers(reminderService, views),
		Imports:          imports.NewHandlers(importService, views),
		Insights:         insights.NewHandlers(insights.NewService(appStore, now), views),
		Merchants:        merchants.NewHandlers(merchantService, views),
		Payments:         payments.NewHandlers(paymentService, views),
		Terminals:        terminals.NewHandlers(terminalService, views),
		APIKeys:          api.KeyHandlers,
		APIKeyService:    api.Keys,
		API:              api.Handlers,
		APIGuard:         api.Guard,
		APIDocs:          api.Docs,
		WebhookEndpoints: webhooks.NewHandlers(webhookService, views),
	})
	return &App{Config: cfg, DB: db, Log: log, Sessions: sessions, Auth: authService, Pricing: pricingService, Documents: docService, DocumentStorage: docStorage, Jobs: queue, Outbox: outbox, Upstream: upstreamClient, Store: appStore, Applications: workspaceService, Sealer: sealer, Dashboard: dashboardService, Submissions: submissions, Reminders: reminderService, Imports: importService, Merchants: merchantService, Payments: paymentService, Terminals: terminalService, Keys: keyService, Webhooks: webhookService, DocumentProxy: documentProxy, APIKeys: api.Keys, Handler: handler}, nil
}

// wireQueueAndMail makes the job queue (every worker is registered on it
// before the caller starts it), the mail sender and the outbox, and queues the
// one-time tasks not done yet: secret links stored in the clear before links
// were sealed (hand-off links and messages' links) are sealed once, by a job;
// a start reads only what is done.
func wireQueueAndMail(ctx context.Context, cfg *config.Config, db *database.DB, opts Options, ring *fieldcrypt.KeyRing,
	appStore *applications.Store, now func() time.Time, log *slog.Logger) (*jobs.Queue, mail.Sender, *mail.Outbox, error) {
	jobsCfg := jobs.ConfigFrom(cfg.Workers)
	jobsCfg.PollInterval, jobsCfg.RetryDelay = opts.JobPollInterval, opts.JobRetryDelay
	jobsCfg.Instance = cfg.Instance
	queue, err := jobs.New(db.Pool, jobsCfg, log)
	if err != nil {
		return nil, nil, nil, err
	}
	sender, err := mail.NewSender(cfg.SMTP, cfg.ResellerName)
	if err != nil {
		return nil, nil, nil, err
	}
	outbox := mail.NewOutbox(mail.Deps{Pool: db.Pool, Queue: queue, Sender: sender, SMTP: cfg.SMTP, KeyRing: ring, Now: now, Log: log})
	if err := jobs.ScheduleOneTimeTasks(ctx, queue, []jobs.OneTimeTask{
		{Name: "seal_legacy_handoff_links", Run: appStore.SealLegacyLinks},
		{Name: "seal_legacy_outbox_links", Run: outbox.SealLegacyLinks},
	}, now, log); err != nil {
		return nil, nil, nil, err
	}
	return queue, sender, outbox, nil
}

// documentTitles names the document types for the readiness checklist.
func documentTitles() map[string]string {
	titles := make(map[string]string, len(documents.DocumentTypes))
	for _, dt := range documents.DocumentTypes {
		titles[dt.Code] = dt.Label
	}
	return titles
}
