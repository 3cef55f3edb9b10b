package app

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// submissionParts are what the submission and its push are built from.
type submissionParts struct {
	Gorm         *gorm.DB
	Pool         *pgxpool.Pool
	Queue        *jobs.Queue
	Drafts       *applications.Service
	Views        *applications.SubmissionViews
	Sealer       *applications.Sealer
	Pricing      *pricing.Service
	Outbox       *mail.Outbox
	Upstream     *upstream.Client // nil: no upstream configured
	Documents    *documents.Service
	Storage      documents.Storage
	PublicURL    *url.URL
	ResellerName string
	// UploadRetryDelay is the proxy's first wait between upload attempts; zero
	// keeps its default.
	UploadRetryDelay time.Duration
	Now              func() time.Time
	Log              *slog.Logger
}

// wireSubmissions registers the push worker and the reconciler on the queue
// and returns the submission use cases.
func wireSubmissions(p submissionParts) *applications.Submissions {
	log := p.Log.With("component", "submission")
	var up applications.Upstream
	var docs applications.DocumentSender
	if p.Upstream != nil { // a nil *Client in the interface would not read as nil
		up = p.Upstream
		docs = documentSender{documents.NewProxy(p.Upstream, p.Storage, p.Documents.Store(), documents.ProxyOptions{
			BaseDelay: p.UploadRetryDelay, MaxDelay: 10 * p.UploadRetryDelay, Now: p.Now, Logger: log,
		})}
	}
	jobs.Register(p.Queue, applications.NewPushWorker(applications.PushDeps{
		DB: p.Gorm, Pool: p.Pool, Sealer: p.Sealer, Upstream: up, Documents: docs, Outbox: p.Outbox,
		PublicURL: p.PublicURL, ResellerName: p.ResellerName, Now: p.Now, Log: log,
	}))
	jobs.Register(p.Queue, applications.NewReconcileWorker(p.Pool, p.Queue, log))
	p.Queue.AddPeriodic(applications.ReconcilePeriodicJob(applications.DefaultReconcileInterval))
	return applications.NewSubmissions(applications.SubmissionDeps{
		Pool: p.Pool, Drafts: p.Drafts, Sealer: p.Sealer, Pricing: p.Pricing, Queue: p.Queue,
		Outbox: p.Outbox, Views: p.Views, PublicURL: p.PublicURL, ResellerName: p.ResellerName,
		Now: p.Now, Log: log,
	})
}

// documentSender adapts the uploads proxy to what the push needs; the
// applications package cannot import uploads, which imports it.
type documentSender struct{ proxy *documents.Proxy }

// SendDocuments uploads docs through the proxy and says, for each failure,
// whether trying again later can help.
func (s documentSender) SendDocuments(ctx context.Context, upstreamAppID string, docs []models.Document, concurrency int) []applications.DocumentOutcome {
	results := s.proxy.PushAll(ctx, upstreamAppID, docs, concurrency)
	out := make([]applications.DocumentOutcome, len(results))
	for i, r := range results {
		out[i] = applications.DocumentOutcome{Document: r.Document, Err: r.Err}
		if r.Err == nil {
			continue
		}
		// A refusal by the upstream, or a stored file that is gone or damaged,
		// needs the rep; no answer, 5xx and interruptions are retried later.
		out[i].Reason = "The file could not be sent to the processor."
		out[i].Permanent = upstream.IsPermanent(r.Err) || errors.Is(r.Err, documents.ErrNotFound)
		var pe *documents.PushError
		if errors.As(r.Err, &pe) {
			out[i].Reason = pe.Reason
			out[i].Permanent = pe.Permanent
		}
	}
	return out
}
