package submission_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

// TestFiftyPushesThroughFaultsWithTwoInstances submits 50 applications while
// the sandbox answers 20% of requests with 5xx (or 429) after a random delay,
// and two portal instances work the queue of one database. Every application
// must reach linked, with exactly one upstream application each and every
// document arriving byte for byte.
func TestFiftyPushesThroughFaultsWithTwoInstances(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault test")
	}
	s := newSubmitEnv(t, submitOptions{sandbox: func(o *sandbox.Options) {
		o.Faults = sandbox.Faults{ErrorRate: 0.2, LatencyJitter: 20 * time.Millisecond}
	}})
	second := startSecondInstance(t, s)

	const n = 50
	ctx := context.Background()
	ids := make([]uuid.UUID, n)
	for i := range n {
		a := s.newApplication(t, s.rep, readyDraft("Merchant"), 1+i%2)
		ids[i] = a.ID
	}
	for i, id := range ids {
		// Both instances take submissions, as behind a load balancer.
		subs := s.env.App.Submissions
		if i%2 == 1 {
			subs = second.Submissions
		}
		if err := subs.Submit(ctx, s.rep, id); err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
	}

	deadline := time.After(90 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var linked, attention int64
		s.env.DB.Gorm.Model(&models.Application{}).Where("id IN ? AND status = 'linked'", ids).Count(&linked)
		s.env.DB.Gorm.Model(&models.Application{}).Where("id IN ? AND status = 'needs_attention'", ids).Count(&attention)
		if attention > 0 {
			var a models.Application
			s.env.DB.Gorm.Where("id IN ? AND status = 'needs_attention'", ids).Take(&a)
			t.Fatalf("%d applications need attention, e.g. %s: %s", attention, a.ID, deref(a.LastError))
		}
		if linked == n {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("only %d of %d applications linked", linked, n)
		}
	}

	if got := s.sb.StartedCount(); got != n {
		t.Errorf("the sandbox started %d applications, want %d", got, n)
	}
	upstreamIDs := map[string]bool{}
	for _, id := range ids {
		a := s.load(t, id)
		upstreamIDs[deref(a.UpstreamApplicationID)] = true
		up, ok := s.sb.Application(deref(a.UpstreamApplicationID))
		if !ok || up.ExternalApplicationID != id.String() || !up.Linked {
			t.Errorf("%s: sandbox application %+v", id, up)
		}
		s.assertDocumentsArrived(t, a)
		acts := s.actions(t, id)
		if countOf(acts, "linked") != 1 || countOf(acts, "submitted") != 1 {
			t.Errorf("%s: audit trail %v", id, acts)
		}
	}
	if len(upstreamIDs) != n {
		t.Errorf("%d distinct upstream applications for %d submissions", len(upstreamIDs), n)
	}
	// The faults struck and were retried: more API requests than the pushes need.
	if minimum := n*3 + n + n/2; s.sb.APIRequests() <= minimum {
		t.Errorf("the sandbox saw %d API requests, no more than the %d a fault-free run needs", s.sb.APIRequests(), minimum)
	}
	// Both instances worked pushes.
	var workers int64
	s.env.DB.Gorm.Raw(`SELECT count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FROM river_job WHERE kind = 'application_push'`).Scan(&workers)
	if workers < 2 {
		t.Errorf("pushes were worked by %d instance(s), want both", workers)
	}
	var emails int64
	s.env.DB.Gorm.Table("mail_outbox").Where("application_id IN ? AND kind = 'handoff'", ids).Count(&emails)
	if emails != n {
		t.Errorf("%d hand-off e-mails queued, want one per application (%d)", emails, n)
	}
}

// startSecondInstance builds another portal on the same database and starts
// its job workers, as a second process behind the same load balancer would.
func startSecondInstance(t *testing.T, s *submitEnv) *app.App {
	t.Helper()
	a, err := app.Build(context.Background(), s.env.Config, s.env.DB, slog.New(slog.DiscardHandler), app.Options{
		Now: s.env.Clock.Now, JobPollInterval: 50 * time.Millisecond,
		JobRetryDelay: func(int) time.Duration { return 50 * time.Millisecond },
		Upstream:      s.env.App.Upstream, PushRetryDelay: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Jobs.StopAndCancel(ctx)
	})
	return a
}
