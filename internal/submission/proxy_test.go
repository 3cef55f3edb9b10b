package submission_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/testutil"

	"github.com/payportal/portal/internal/testutil/testfiles"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/testdb"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

const sandboxToken = "proxy-test-token"

// proxyEnv is a sandbox upstream over real HTTP, a started application in
// it, and a database and local storage holding our documents.
type proxyEnv struct {
	sandbox *sandbox.Server
	clock   *sandbox.ManualClock
	client  *upstream.Client
	appID   string // the upstream's application id
	db      *database.DB
	storage *documents.LocalStorage
	docs    *documents.Store
	ourApp  *models.Application
	waits   *testutil.Waits
}

type proxySetup struct {
	sandbox   sandbox.Options
	transport http.RoundTripper
}

func newProxyEnv(t testing.TB, setup proxySetup) *proxyEnv {
	t.Helper()
	clock := sandbox.NewManualClock(time.Now())
	opts := setup.sandbox
	opts.Tokens, opts.Clock, opts.ObjectDir = []string{sandboxToken}, clock, t.TempDir()
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(func() { srv.Close(); _ = sb.Close() })
	if err := sb.SetPublicBaseURL(srv.URL); err != nil {
		t.Fatal(err)
	}
	transport := setup.transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	client, err := upstream.New(upstream.Config{
		BaseURL: srv.URL + "/v2", Token: sandboxToken, HTTPClient: &http.Client{Transport: transport},
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	appID, err := client.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: "RETAIL-1"})
	if err != nil {
		t.Fatalf("start application: %v", err)
	}
	db := testdb.New(t)
	storage, err := documents.NewLocalStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = storage.Close() })
	return &proxyEnv{
		sandbox: sb, clock: clock, client: client, appID: appID, db: db, storage: storage,
		docs: documents.NewStore(db), ourApp: insertApplication(t, db), waits: &testutil.Waits{},
	}
}

// insertApplication adds a rep and a draft application owned by them.
func insertApplication(t testing.TB, db *database.DB) *models.Application {
	t.Helper()
	now := time.Now()
	u := &models.User{ID: uuid.New(), Email: uuid.NewString() + "@example.com", Role: models.RoleSalesRep,
		PasswordHash: "x", Active: true, SessionVersion: 1, CreatedAt: now, UpdatedAt: now}
	a := &models.Application{ID: uuid.New(), OwnerID: u.ID, Status: models.StatusSubmitting, Draft: models.JSON(`{}`),
		Version: 1, CreatedAt: now, UpdatedAt: now}
	if err := db.Gorm.Create(u).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	return a
}

// addDocument stores content as a document of the application.
func (e *proxyEnv) addDocument(t testing.TB, docType, name string, content io.Reader) models.Document {
	t.Helper()
	id := uuid.New()
	key := documents.StorageKey(e.ourApp.ID, id)
	res, err := documents.Ingest(context.Background(), e.storage, key, content, name, documents.Limits{MaxBytes: 1 << 30, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := models.Document{ID: id, ApplicationID: e.ourApp.ID, DocType: docType, DisplayName: res.DisplayName,
		ContentType: res.ContentType, SizeBytes: res.Size, SHA256: res.SHA256, StorageKey: key,
		CreatedAt: time.Now(), UpstreamStatus: documents.UpstreamPending}
	if err := e.db.Gorm.Create(&d).Error; err != nil {
		t.Fatal(err)
	}
	return d
}

func (e *proxyEnv) proxy(files submission.UpstreamFiles, opts submission.ProxyOptions) *submission.Proxy {
	if files == nil {
		files = e.client
	}
	opts.Sleep = e.waits.Sleep
	return submission.NewProxy(files, e.storage, e.docs, opts)
}

func (e *proxyEnv) reload(t testing.TB, id uuid.UUID) *models.Document {
	t.Helper()
	d, err := e.docs.ByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// storedSHA256 hashes what our storage holds for the document.
func (e *proxyEnv) storedSHA256(t testing.TB, d models.Document) string {
	t.Helper()
	body, _, err := e.storage.Open(context.Background(), d.StorageKey)
	if err != nil {
		t.Fatalf("stored file: %v", err)
	}
	defer body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, body); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hookedFiles wraps the upstream client to act between the metadata POST
// and the upload, and to watch documents.
type hookedFiles struct {
	*upstream.Client
	afterCreate func(n int, up upstream.FileUpload)
	beforePut   func(ctx context.Context)

	mu       sync.Mutex
	creates  []string // file ids, in order
	puts     int
	inflight int
	peak     int
}

func (h *hookedFiles) CreateFile(ctx context.Context, appID string, meta upstream.FileMetadata) (upstream.FileUpload, error) {
	up, err := h.Client.CreateFile(ctx, appID, meta)
	if err != nil {
		return up, err
	}
	h.mu.Lock()
	h.creates = append(h.creates, up.FileID)
	n := len(h.creates)
	h.mu.Unlock()
	if h.afterCreate != nil {
		h.afterCreate(n, up)
	}
	return up, nil
}

func (h *hookedFiles) UploadToPresignedURL(ctx context.Context, url string, body io.Reader, size int64, contentType string) error {
	h.mu.Lock()
	h.puts++
	h.inflight++
	h.peak = max(h.peak, h.inflight)
	h.mu.Unlock()
	defer func() { h.mu.Lock(); h.inflight--; h.mu.Unlock() }()
	if h.beforePut != nil {
		h.beforePut(ctx)
	}
	return h.Client.UploadToPresignedURL(ctx, url, body, size, contentType)
}

func TestPushDocumentLandsByteForByte(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		compat sandbox.Compat
	}{
		{"answer with presignedUrl", sandbox.Compat{}},
		{"answer with fileId only", sandbox.Compat{OmitPresignedURL: true}},
		{"expAt in seconds", sandbox.Compat{ExpAtSeconds: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := newProxyEnv(t, proxySetup{sandbox: sandbox.Options{Compat: tt.compat}})
			doc := env.addDocument(t, "bank_statement", "March.pdf", bytes.NewReader(testfiles.PDF(3<<20+17, 1)))
			fileID, err := env.proxy(nil, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
			if err != nil {
				t.Fatalf("PushDocument: %v", err)
			}
			sum, ok := env.sandbox.FileSHA256(env.appID, fileID)
			if !ok || sum != doc.SHA256 {
				t.Fatalf("upstream holds %q (%v), want the recorded SHA-256 %s", sum, ok, doc.SHA256)
			}
			got := env.reload(t, doc.ID)
			if got.UpstreamStatus != documents.UpstreamUploaded || got.UpstreamFileID == nil || *got.UpstreamFileID != fileID ||
				got.UpstreamAttempts != 1 || got.UpstreamUploadedAt == nil || got.UpstreamError != nil {
				t.Fatalf("row after push: %+v", got)
			}

			// A second push skips the uploaded document without calling the upstream.
			before := env.sandbox.APIRequests()
			again, err := env.proxy(nil, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
			if err != nil || again != fileID || env.sandbox.APIRequests() != before {
				t.Fatalf("second push: %q %v, %d new API requests", again, err, env.sandbox.APIRequests()-before)
			}
			if n := env.reload(t, doc.ID).UpstreamAttempts; n != 1 {
				t.Errorf("attempts after the skipped push = %d", n)
			}
		})
	}
}

func TestPushDocumentRefreshesAnExpiredURL(t *testing.T) {
	t.Parallel()
	env := newProxyEnv(t, proxySetup{})
	doc := env.addDocument(t, "photo_id", "licence.pdf", bytes.NewReader(testfiles.PDF(256<<10, 2)))
	// The first URL outlives its 120 seconds between the metadata POST and
	// the upload, as when the portal stalls.
	files := &hookedFiles{Client: env.client, afterCreate: func(n int, _ upstream.FileUpload) {
		if n == 1 {
			env.clock.Advance(121 * time.Second)
		}
	}}
	fileID, err := env.proxy(files, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
	if err != nil {
		t.Fatalf("PushDocument: %v", err)
	}
	if len(files.creates) != 2 || fileID != files.creates[1] {
		t.Fatalf("metadata posts %v, file id %s: want a second POST whose file is the one uploaded", files.creates, fileID)
	}
	if sum, ok := env.sandbox.FileSHA256(env.appID, fileID); !ok || sum != doc.SHA256 {
		t.Fatalf("upstream content %q %v, want %s", sum, ok, doc.SHA256)
	}
	if _, ok := env.sandbox.FileSHA256(env.appID, files.creates[0]); ok {
		t.Error("the expired URL accepted the upload")
	}
	got := env.reload(t, doc.ID)
	if got.UpstreamStatus != documents.UpstreamUploaded || got.UpstreamAttempts != 2 || got.UpstreamError != nil || *got.UpstreamFileID != fileID {
		t.Fatalf("row: %+v", got)
	}
	if w := env.waits.All(); len(w) != 1 || w[0] != 0 {
		t.Errorf("waits %v: an expired URL is refreshed at once", w)
	}
}

func TestPushDocumentSkipsAURLAlreadyExpired(t *testing.T) {
	t.Parallel()
	env := newProxyEnv(t, proxySetup{})
	doc := env.addDocument(t, "other", "a.pdf", bytes.NewReader(testfiles.SamplePDF))
	// Our clock runs ten minutes ahead of the upstream's: every URL looks
	// expired on arrival. The proxy asks again, and on its last attempt lets
	// the store decide, which accepts it.
	files := &hookedFiles{Client: env.client}
	p := env.proxy(files, submission.ProxyOptions{Now: func() time.Time { return time.Now().Add(10 * time.Minute) }})
	fileID, err := p.PushDocument(context.Background(), env.appID, doc)
	if err != nil {
		t.Fatalf("PushDocument: %v", err)
	}
	if len(files.creates) != submission.DefaultPushAttempts || files.puts != 1 {
		t.Fatalf("metadata posts %d, uploads %d: want %d posts and one upload", len(files.creates), files.puts, submission.DefaultPushAttempts)
	}
	if sum, _ := env.sandbox.FileSHA256(env.appID, fileID); sum != doc.SHA256 {
		t.Fatalf("upstream content %q", sum)
	}
}

func TestPushDocumentThatKeepsFailing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		files      func(env *proxyEnv) submission.UpstreamFiles
		transport  http.RoundTripper
		wantReason string
		wantWaits  []time.Duration
		attempts   int
		permanent  bool
	}{
		{
			name: "every URL expires",
			files: func(env *proxyEnv) submission.UpstreamFiles {
				return &hookedFiles{Client: env.client, afterCreate: func(int, upstream.FileUpload) { env.clock.Advance(121 * time.Second) }}
			},
			wantReason: "The processor's upload link expired before the file could be sent (gave up after 4 attempts).",
			wantWaits:  []time.Duration{0, 0, 0},
			attempts:   4,
		},
		{
			name:       "the file store is down",
			transport:  storeAnswers(http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate."),
			wantReason: "The processor's file store was unavailable (HTTP 503) (gave up after 4 attempts).",
			wantWaits:  []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
			attempts:   4,
		},
		{
			name:       "the file store refuses the signature",
			transport:  storeAnswers(http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match."),
			wantReason: "The processor's file store refused the upload (HTTP 403 SignatureDoesNotMatch): The request signature we calculated does not match.",
			attempts:   1,
			permanent:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newProxyEnv(t, proxySetup{transport: tt.transport})
			var files submission.UpstreamFiles
			if tt.files != nil {
				files = tt.files(env)
			}
			doc := env.addDocument(t, "bank_statement", "statement.pdf", bytes.NewReader(testfiles.PDF(512<<10, 3)))
			_, err := env.proxy(files, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
			var perr *submission.PushError
			if !errors.As(err, &perr) || perr.Reason != tt.wantReason || perr.Attempts != tt.attempts || perr.Permanent != tt.permanent {
				t.Fatalf("err = %v (permanent %v), want a PushError %q after %d attempts, permanent %v", err, perr != nil && perr.Permanent, tt.wantReason, tt.attempts, tt.permanent)
			}
			got := env.reload(t, doc.ID)
			if got.UpstreamStatus != documents.UpstreamFailed || got.UpstreamError == nil || *got.UpstreamError != tt.wantReason ||
				got.UpstreamAttempts != tt.attempts || got.UpstreamUploadedAt != nil {
				t.Fatalf("row: %+v (error %q)", got, deref(got.UpstreamError))
			}
			if sum := env.storedSHA256(t, doc); sum != doc.SHA256 {
				t.Fatal("the stored file changed")
			}
			if w := env.waits.All(); !equalDurations(w, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", w, tt.wantWaits)
			}
		})
	}
}

func TestPushDocumentRefusedDetailsAreNotRetried(t *testing.T) {
	t.Parallel()
	env := newProxyEnv(t, proxySetup{sandbox: sandbox.Options{MaxFileSize: 64}})
	doc := env.addDocument(t, "tax_document", "1099.pdf", bytes.NewReader(testfiles.SamplePDF))
	_, err := env.proxy(nil, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
	var perr *submission.PushError
	if !errors.As(err, &perr) || perr.Attempts != 1 || !perr.Permanent || !strings.HasPrefix(perr.Reason, "The processor refused the file's details (HTTP 4") {
		t.Fatalf("err = %v", err)
	}
	if got := env.reload(t, doc.ID); got.UpstreamStatus != documents.UpstreamFailed || got.UpstreamAttempts != 1 {
		t.Fatalf("row: %+v", got)
	}
}

func TestPushDocumentWithMissingBytes(t *testing.T) {
	t.Parallel()
	env := newProxyEnv(t, proxySetup{})
	doc := env.addDocument(t, "other", "gone.pdf", bytes.NewReader(testfiles.SamplePDF))
	if err := env.storage.Delete(context.Background(), doc.StorageKey); err != nil {
		t.Fatal(err)
	}
	_, err := env.proxy(nil, submission.ProxyOptions{}).PushDocument(context.Background(), env.appID, doc)
	var perr *submission.PushError
	if !errors.As(err, &perr) || perr.Reason != "The stored file is missing; upload the document again." || perr.Attempts != 1 || !perr.Permanent {
		t.Fatalf("err = %v", err)
	}
}

func TestPushAllRunsBoundedAndReportsEachDocument(t *testing.T) {
	t.Parallel()
	env := newProxyEnv(t, proxySetup{})
	var docs []models.Document
	for i := range 5 {
		docs = append(docs, env.addDocument(t, "other", "doc.pdf", bytes.NewReader(testfiles.PDF(64<<10+i, uint64(i)))))
	}
	// The first two uploads wait for each other: if they never overlap, the
	// proxy is not running them concurrently.
	both := make(chan struct{})
	var once sync.Once
	files := &hookedFiles{Client: env.client}
	files.beforePut = func(ctx context.Context) {
		files.mu.Lock()
		n := files.inflight
		files.mu.Unlock()
		if n >= 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(20 * time.Second):
			t.Error("two uploads never ran at the same time")
		}
	}
	results := env.proxy(files, submission.ProxyOptions{}).PushAll(context.Background(), env.appID, docs, 2)
	if len(results) != len(docs) {
		t.Fatalf("%d results for %d documents", len(results), len(docs))
	}
	for i, r := range results {
		if r.Err != nil || r.Document.ID != docs[i].ID {
			t.Fatalf("result %d: %+v", i, r)
		}
		if sum, _ := env.sandbox.FileSHA256(env.appID, r.FileID); sum != docs[i].SHA256 {
			t.Errorf("document %d landed as %q, want %s", i, sum, docs[i].SHA256)
		}
	}
	if files.peak != 2 {
		t.Errorf("peak concurrent uploads = %d, want 2", files.peak)
	}
}

// storeAnswers is a transport that answers every presigned PUT with an S3
// error and passes API calls through.
func storeAnswers(status int, code, message string) http.RoundTripper {
	next := http.DefaultTransport.(*http.Transport).Clone()
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method != http.MethodPut {
			return next.RoundTrip(r)
		}
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
			_ = r.Body.Close()
		}
		body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code + `</Code><Message>` + message + `</Message></Error>`
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/xml"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
