package app

import (
	"log/slog"
	"time"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/submission"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// submissionParts are what the submission and its push are built from.
type submissionParts struct {
	Apps      *applications.Store
	Docs      *documents.Store
	Queue     *jobs.Queue
	Readiness submission.Readiness
	Views     *submission.Views
	Sealer    *applications.Sealer
	Pricing   *pricing.Service
	Outbox    *mail.Outbox
	Handoff   *handoff.Mailer
	Statuses  *handoff.UpstreamStatusRecorder
	Upstream  *upstream.Client // nil: no upstream configured
	Storage   documents.Storage
	// Announcer tells partners of submissions and links.
	Announcer submission.Announcer
	// UploadRetryDelay is the proxy's first wait between upload attempts; zero
	// keeps its default.
	UploadRetryDelay time.Duration
	Now              func() time.Time
	Log              *slog.Logger
}

// wireSubmissions registers the push worker and the reconciler on the queue
// and returns the submission use cases and the document proxy (nil without an
// upstream).
func wireSubmissions(p submissionParts) (*submission.Submissions, *submission.Proxy) {
	log := p.Log.With("component", "submission")
	var up submission.Upstream
	var docs submission.DocumentSender
	var proxy *submission.Proxy
	if p.Upstream != nil { // a nil *Client in the interface would not read as nil
		up = p.Upstream
		proxy = submission.NewProxy(p.Upstream, p.Storage, p.Docs, submission.ProxyOptions{
			BaseDelay: p.UploadRetryDelay, MaxDelay: 10 * p.UploadRetryDelay, Now: p.Now, Logger: log,
		})
		docs = proxy
	}
	jobs.Register(p.Queue, submission.NewPushWorker(submission.PushDeps{
		Apps: p.Apps, Docs: p.Docs, Statuses: p.Statuses, Sealer: p.Sealer, Upstream: up, Documents: docs,
		Outbox: p.Outbox, Handoff: p.Handoff, PricingModels: p.Pricing, Announcer: p.Announcer, Now: p.Now, Log: log,
	}))
	jobs.Register(p.Queue, submission.NewReconcileWorker(p.Apps, p.Queue, log))
	p.Queue.AddPeriodic(submission.ReconcilePeriodicJob(submission.DefaultReconcileInterval))
	return submission.NewSubmissions(submission.Deps{
		Apps: p.Apps, Readiness: p.Readiness, Sealer: p.Sealer, Pricing: p.Pricing, Queue: p.Queue,
		Views: p.Views, Announcer: p.Announcer, Now: p.Now, Log: log,
	}), proxy
}
