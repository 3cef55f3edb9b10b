package submission_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/submission"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// benchLatency is the delay the sandbox adds before every API and object-store
// answer: a slow processor, across a continent.
const benchLatency = 100 * time.Millisecond

// benchDocumentSizes are the five documents of the benchmark's application,
// sized like scans and exported statements.
var benchDocumentSizes = []int{200 << 10, 512 << 10, 1 << 20, 1536 << 10, 2 << 20}

// benchStatusPoll is how often the benchmark looks for the linked status; it
// bounds the measurement's own delay.
const benchStatusPoll = 2 * time.Millisecond

// BenchmarkSubmitToLink measures one submission of an application with five
// documents, from the Submit call until the row says linked, against the
// sandbox over HTTP with 100 ms of latency on every answer. In the same
// iteration it measures the critical path: the upstream calls run back to
// back by the upstream client itself (start, PATCH, the slowest document's
// metadata and upload, link). ns/op is submit-to-link; x-critical-path is
// the ratio of the sums, which must stay at or below 1.15 (BENCHMARKS.md).
func BenchmarkSubmitToLink(b *testing.B) {
	env := apptest.New(b,
		apptest.WithSandbox(func(o *sandbox.Options) { o.Faults = sandbox.Faults{Latency: benchLatency} }),
		// River is told of the new job by LISTEN/NOTIFY at commit; the poll
		// interval also bounds the cooldown between two fetches.
		apptest.WithJobPollInterval(10*time.Millisecond))
	rep, _ := env.CreateUser(b, "rep@bench.example", models.RoleSalesRep)
	pricingModel := createPricingModel(b, env.DB.Gorm)
	files := make([][]byte, len(benchDocumentSizes))
	for i, size := range benchDocumentSizes {
		files[i] = sizedPDF(b, size)
	}
	draft := readyDraft("Blue Fern")
	data := submission.UpstreamData(draft)
	ctx := context.Background()

	var pushed, critical, slowestDoc, queued, worked time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a := storeBenchApplication(b, env, pricingModel, rep, draft, files)
		b.StartTimer()
		began := time.Now()
		if err := env.App.Submissions.Submit(ctx, rep, a.ID); err != nil {
			b.Fatalf("submit: %v", err)
		}
		waitLinked(b, env, a.ID)
		linked := time.Now()
		pushed += linked.Sub(began)
		b.StopTimer()
		created, attempted := jobTimes(b, env, a.ID)
		queued += attempted.Sub(created)
		worked += linked.Sub(attempted)

		cp, doc := criticalPath(b, env.App.Upstream, data, files)
		critical += cp
		slowestDoc += doc
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(critical.Nanoseconds())/n, "critical-ns/op")
	b.ReportMetric(float64(slowestDoc.Nanoseconds())/n, "slowest-doc-ns/op")
	b.ReportMetric(float64(pushed-critical)/n/float64(time.Millisecond), "overhead-ms/op")
	b.ReportMetric(float64(queued)/n/float64(time.Millisecond), "queue-wait-ms/op")
	b.ReportMetric(float64(worked)/n/float64(time.Millisecond), "job-run-ms/op")
	b.ReportMetric(float64(pushed)/float64(critical), "x-critical-path")
}

// storeBenchApplication stores a ready application with one document per
// file, as the rep's uploads would.
func storeBenchApplication(b *testing.B, env *apptest.Env, pricingModel uuid.UUID, rep *models.User, d drafts.Draft, files [][]byte) *models.Application {
	b.Helper()
	a := storeApplication(b, env.App, pricingModel, rep, d, 0)
	types := []string{"bank_statement", "voided_check", "photo_id", "business_registration", "tax_document"}
	for i, f := range files {
		name := fmt.Sprintf("document-%d.pdf", i+1)
		if _, err := env.App.Documents.Attach(context.Background(), rep, a, types[i%len(types)], bytes.NewReader(f), name); err != nil {
			b.Fatalf("attach %s: %v", name, err)
		}
	}
	return a
}

// waitLinked polls the row until the application is linked; any other final
// state fails the benchmark.
func waitLinked(b *testing.B, env *apptest.Env, id uuid.UUID) {
	b.Helper()
	tick := time.NewTicker(benchStatusPoll)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		var status string
		var lastError *string
		err := env.DB.Pool.QueryRow(context.Background(), `SELECT status, last_error FROM applications WHERE id = $1`, id).Scan(&status, &lastError)
		if err != nil {
			b.Fatal(err)
		}
		switch models.ApplicationStatus(status) {
		case models.StatusLinked:
			return
		case models.StatusNeedsAttention:
			b.Fatalf("push stopped: %s", deref(lastError))
		}
		select {
		case <-tick.C:
		case <-deadline:
			b.Fatalf("application %s still %s after 30 s (last error %q)", id, status, deref(lastError))
		}
	}
}

// jobTimes reads from River's row when the push job was inserted and when
// its (first and only) attempt began. River marks the job completed in a
// later batch, after the application is already linked.
func jobTimes(b *testing.B, env *apptest.Env, id uuid.UUID) (created, attempted time.Time) {
	b.Helper()
	err := env.DB.Pool.QueryRow(context.Background(), `SELECT created_at, attempted_at FROM river_job
		WHERE kind = 'application_push' AND args->>'application_id' = $1`, id.String()).Scan(&created, &attempted)
	if err != nil {
		b.Fatalf("push job: %v", err)
	}
	return created, attempted
}

// criticalPath runs the upstream calls of a push back to back on a new
// upstream application and returns start + PATCH + the slowest document's
// metadata and upload + link, and that slowest document's share.
func criticalPath(b *testing.B, c *upstream.Client, data upstream.ApplicationData, files [][]byte) (total, slowestDoc time.Duration) {
	b.Helper()
	ctx := context.Background()
	t0 := time.Now()
	upID, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: pricingCode})
	if err != nil {
		b.Fatalf("start: %v", err)
	}
	if err := c.PatchApplication(ctx, upID, data); err != nil {
		b.Fatalf("patch: %v", err)
	}
	total = time.Since(t0)
	for i, f := range files {
		t := time.Now()
		up, err := c.CreateFile(ctx, upID, upstream.FileMetadata{
			FileType: upstream.FileTypeBankStatement, Name: fmt.Sprintf("document-%d.pdf", i+1),
			ContentLength: int64(len(f)), ContentType: "application/pdf",
		})
		if err != nil {
			b.Fatalf("file metadata: %v", err)
		}
		if err := c.UploadToPresignedURL(ctx, up.PresignedURL, bytes.NewReader(f), int64(len(f)), "application/pdf"); err != nil {
			b.Fatalf("upload: %v", err)
		}
		slowestDoc = max(slowestDoc, time.Since(t))
	}
	t := time.Now()
	if _, err := c.CreateLink(ctx, upID); err != nil {
		b.Fatalf("link: %v", err)
	}
	return total + slowestDoc + time.Since(t), slowestDoc
}

// sizedPDF is a PDF of exactly size bytes whose content stream is random, so
// nothing along the way can compress it.
func sizedPDF(t testing.TB, size int) []byte {
	t.Helper()
	head := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 0 >>\nstream\n")
	tail := []byte("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	body := make([]byte, size-len(head)-len(tail))
	if _, err := rand.Read(body); err != nil {
		t.Fatal(err)
	}
	return append(append(head, body...), tail...)
}
