package submission_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// orderedUpstream stands in for the processor and checks the push's order:
// the PATCH and the documents must be in flight together (each waits for the
// other to begin, so a push that ran them one after the other would never
// finish), and the link must come after both ended.
type orderedUpstream struct {
	mu                          sync.Mutex
	patchStarted, docsStarted   chan struct{}
	patchOnce, docsOnce         sync.Once
	patchDone, docsDone, linked bool
	patchErr                    error
	docsFail                    *submission.DocumentOutcome
	patches, sends, links       int
	waitForEachOther            bool
}

func newOrderedUpstream() *orderedUpstream {
	return &orderedUpstream{patchStarted: make(chan struct{}), docsStarted: make(chan struct{}), waitForEachOther: true}
}

func (u *orderedUpstream) StartApplication(context.Context, upstream.StartRequest) (string, error) {
	return "up-ordered", nil
}

func (u *orderedUpstream) PatchApplication(ctx context.Context, _ string, _ upstream.ApplicationData) error {
	u.patchOnce.Do(func() { close(u.patchStarted) })
	if u.waitForEachOther {
		select {
		case <-u.docsStarted:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.patches++
	u.patchDone = u.patchErr == nil
	return u.patchErr
}

func (u *orderedUpstream) SendDocuments(ctx context.Context, _ string, docs []models.Document, _ int) []submission.DocumentOutcome {
	u.docsOnce.Do(func() { close(u.docsStarted) })
	out := make([]submission.DocumentOutcome, len(docs))
	for i, d := range docs {
		out[i].Document = d
	}
	if u.waitForEachOther {
		select {
		case <-u.patchStarted:
		case <-ctx.Done():
			out[0].Err = ctx.Err()
			return out
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sends++
	if u.docsFail != nil {
		out[0] = *u.docsFail
		out[0].Document = docs[0]
		return out
	}
	u.docsDone = true
	return out
}

func (u *orderedUpstream) CreateLink(context.Context, string) (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.links++
	if !u.patchDone || !u.docsDone {
		return "", errors.New("link asked for before every PATCH and document succeeded")
	}
	u.linked = true
	return "https://upstream.example/link/ordered", nil
}

func (u *orderedUpstream) GetLink(context.Context, string) (string, error) { return "", nil }

// orderedPush submits an application with two documents on a portal whose
// own workers are off, and returns a push worker talking to up instead of
// the processor, and a way to run one attempt of the push.
func orderedPush(t *testing.T, up *orderedUpstream) (*apptest.Env, *models.Application, func() error) {
	t.Helper()
	env := apptest.New(t, apptest.WithoutWorkers())
	rep, _ := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := storeApplication(t, env.App, createPricingModel(t, env.DB.Gorm), rep, readyDraft("Blue Fern"), 2)
	ctx := context.Background()
	if err := env.App.Submissions.Submit(ctx, rep, a.ID); err != nil {
		t.Fatal(err)
	}
	apps := applications.NewStore(env.DB.Pool)
	w := submission.NewPushWorker(submission.PushDeps{
		Apps: apps, Docs: documents.NewStore(env.DB), Statuses: handoff.NewUpstreamStatusRecorder(apps, time.Now),
		Sealer: env.App.Sealer, Upstream: up, Documents: up, Outbox: env.App.Outbox,
		Handoff: handoff.NewMailer(apps, env.Config.PublicURL, env.Config.ResellerName),
	})
	attempt := 0
	run := func() error {
		attempt++
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return w.Work(ctx, &river.Job[submission.PushArgs]{
			JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: submission.PushMaxAttempts},
			Args:   submission.PushArgs{ApplicationID: a.ID, Submission: 1},
		})
	}
	return env, a, run
}

func loadApplication(t *testing.T, env *apptest.Env, id any) *models.Application {
	t.Helper()
	var a models.Application
	if err := env.DB.Gorm.Where("id = ?", id).Take(&a).Error; err != nil {
		t.Fatal(err)
	}
	return &a
}

// Once the upstream application is started, the documents go up beside the
// PATCH, and the link comes last.
func TestDocumentsGoUpBesideThePatchAndTheLinkComesLast(t *testing.T) {
	t.Parallel()
	up := newOrderedUpstream()
	env, a, run := orderedPush(t, up)
	if err := run(); err != nil {
		t.Fatalf("push: %v", err)
	}
	got := loadApplication(t, env, a.ID)
	if got.Status != models.StatusLinked || got.DataSentAt == nil || got.DocumentsSentAt == nil || up.links != 1 {
		t.Fatalf("after the push: %s, data sent %v, documents sent %v, %d links", got.Status, got.DataSentAt, got.DocumentsSentAt, up.links)
	}
	// The push went on the pushes' queue, the merchant's e-mail on the e-mails'.
	queues := map[string]string{}
	rows, err := env.DB.Pool.Query(context.Background(), "SELECT kind, queue FROM river_job")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, queue string
		if err := rows.Scan(&kind, &queue); err != nil {
			t.Fatal(err)
		}
		queues[kind] = queue
	}
	if queues["application_push"] != "push" || queues["mail_deliver"] != "mail" {
		t.Errorf("jobs by queue: %v", queues)
	}
}

// A PATCH that fails (a 5xx) holds back the link but not the documents: they
// are recorded as sent, and the next run sends only the data, then the link.
func TestAFailedPatchHoldsBackTheLinkButNotTheDocuments(t *testing.T) {
	t.Parallel()
	up := newOrderedUpstream()
	up.patchErr = &upstream.Error{StatusCode: http.StatusBadGateway}
	env, a, run := orderedPush(t, up)
	if err := run(); err == nil {
		t.Fatal("the push succeeded with a failed PATCH")
	}
	got := loadApplication(t, env, a.ID)
	if got.Status != models.StatusSubmitting || got.DataSentAt != nil || got.DocumentsSentAt == nil || up.links != 0 {
		t.Fatalf("after the failed PATCH: %s, data sent %v, documents sent %v, %d links", got.Status, got.DataSentAt, got.DocumentsSentAt, up.links)
	}
	up.mu.Lock()
	up.patchErr, up.waitForEachOther = nil, false
	up.mu.Unlock()
	if err := run(); err != nil {
		t.Fatalf("second run: %v", err)
	}
	got = loadApplication(t, env, a.ID)
	if got.Status != models.StatusLinked || up.patches != 2 || up.sends != 1 || up.links != 1 {
		t.Fatalf("after the second run: %s; %d PATCHes, %d document sends, %d links", got.Status, up.patches, up.sends, up.links)
	}
}

// A document the upstream refuses returns the application to the rep with
// the document's reason, even though the PATCH beside it succeeded.
func TestARefusedDocumentNeedsTheRepWhileThePatchIsRecorded(t *testing.T) {
	t.Parallel()
	up := newOrderedUpstream()
	up.docsFail = &submission.DocumentOutcome{Err: errors.New("refused"), Permanent: true, Reason: "The processor refused the file."}
	env, a, run := orderedPush(t, up)
	if err := run(); err == nil {
		t.Fatal("the push succeeded with a refused document")
	}
	got := loadApplication(t, env, a.ID)
	if got.Status != models.StatusNeedsAttention || got.DataSentAt == nil || got.DocumentsSentAt != nil || up.links != 0 {
		t.Fatalf("after the refusal: %s, data sent %v, documents sent %v, %d links", got.Status, got.DataSentAt, got.DocumentsSentAt, up.links)
	}
	if msg := deref(got.LastError); msg == "" || !strings.Contains(msg, "Document “statement-") || !strings.Contains(msg, "The processor refused the file.") {
		t.Errorf("the rep reads %q", msg)
	}
}
