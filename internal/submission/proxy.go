package submission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// Defaults of ProxyOptions.
const (
	DefaultPushAttempts    = 4
	DefaultPushConcurrency = 3
	DefaultPushBaseDelay   = time.Second
	DefaultPushMaxDelay    = 10 * time.Second
)

// documentRecordTimeout bounds the write of a document's final upstream status,
// which is made even when the push's context has ended.
const documentRecordTimeout = 10 * time.Second

// UpstreamFiles is what the proxy needs of the upstream client;
// *upstream.Client provides it.
type UpstreamFiles interface {
	CreateFile(ctx context.Context, applicationID string, meta upstream.FileMetadata) (upstream.FileUpload, error)
	UploadToPresignedURL(ctx context.Context, url string, body io.Reader, size int64, contentType string) error
}

// ProxyOptions tune the proxy; the zero value gives the defaults.
type ProxyOptions struct {
	// MaxAttempts bounds the metadata-then-upload attempts per document.
	// Default 4.
	MaxAttempts int
	// BaseDelay is the wait after a failed attempt, doubling each time up to
	// MaxDelay. An expired URL is retried at once. Defaults 1 s and 10 s.
	BaseDelay, MaxDelay time.Duration
	// Now tells the time, for URL expiry and upstream_uploaded_at.
	Now func() time.Time
	// Sleep waits between attempts; tests replace it. Default: a timer that
	// stops when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives one line per failed attempt. Default: discard.
	Logger *slog.Logger
}

// Proxy sends stored documents to the upstream: for each document it posts
// the file metadata and at once streams the stored bytes to the presigned
// URL it gets back, so each document's 120-second URL window starts just
// before its own upload. An expired URL or a failed upload gets a fresh URL
// (the metadata is posted again) and another attempt, a bounded number of
// times. The outcome is recorded on the document row; the stored bytes are
// only read, never changed.
type Proxy struct {
	files   UpstreamFiles
	storage documents.Storage
	docs    *documents.Store
	opts    ProxyOptions
	log     *slog.Logger
}

// NewProxy returns a proxy that reads documents from storage and records
// their upstream status through docs.
func NewProxy(files UpstreamFiles, storage documents.Storage, docs *documents.Store, opts ProxyOptions) *Proxy {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultPushAttempts
	}
	if opts.BaseDelay <= 0 {
		opts.BaseDelay = DefaultPushBaseDelay
	}
	if opts.MaxDelay < opts.BaseDelay {
		opts.MaxDelay = max(DefaultPushMaxDelay, opts.BaseDelay)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepContext
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Proxy{files: files, storage: storage, docs: docs, opts: opts, log: opts.Logger}
}

// PushError says why a document could not be sent. Reason, in plain words,
// is also stored in documents.upstream_error.
type PushError struct {
	DocumentID uuid.UUID
	Reason     string
	Attempts   int
	// Permanent: sending the document again unchanged cannot work (the
	// upstream refused it, or the stored file is missing or damaged); a
	// person must act. Otherwise (no answer, 5xx, URLs that kept expiring,
	// an interrupted push) a later push may succeed.
	Permanent bool
	Err       error
}

func (e *PushError) Error() string {
	return fmt.Sprintf("submission: sending document %s upstream: %s: %v", e.DocumentID, e.Reason, e.Err)
}

func (e *PushError) Unwrap() error { return e.Err }

// PushResult is the outcome of one document of PushAll.
type PushResult struct {
	Document models.Document
	// FileID is the upstream's id of the file when Err is nil.
	FileID string
	Err    error
	// recorded waits for the record of a successful upload (pushAll beside).
	recorded func() error
}

// PushAll sends docs with at most concurrency uploads at once (default 3)
// and returns one result per document, in the order given. Each document
// gets its presigned URL only when its turn comes, so waiting for a free
// slot never eats into a URL's lifetime. docs must be as just read from the
// store: one already uploaded is skipped on the strength of its row.
func (p *Proxy) PushAll(ctx context.Context, upstreamAppID string, docs []models.Document, concurrency int) []PushResult {
	return p.pushAll(ctx, upstreamAppID, docs, concurrency, false)
}

// pushAll is PushAll; with beside, a successful upload's record is still being
// written when it returns, and each result's recorded waits for it.
func (p *Proxy) pushAll(ctx context.Context, upstreamAppID string, docs []models.Document, concurrency int, beside bool) []PushResult {
	if concurrency <= 0 {
		concurrency = DefaultPushConcurrency
	}
	results := make([]PushResult, len(docs))
	slots := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for i, doc := range docs {
		results[i].Document = doc
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			results[i].Err = ctx.Err()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			var recorded func() error
			results[i].FileID, recorded, results[i].Err = p.push(ctx, upstreamAppID, &doc)
			if results[i].Err == nil && !beside {
				results[i].Err = recorded()
			}
			results[i].recorded = recorded
		}()
	}
	wg.Wait()
	return results
}

// PushDocument sends one document to the upstream application and returns
// the upstream's file id. A document already uploaded is skipped (its file
// id is returned), so a submission that failed halfway can simply be run
// again. Failures are *PushError, recorded on the row as status failed.
func (p *Proxy) PushDocument(ctx context.Context, upstreamAppID string, doc models.Document) (string, error) {
	cur, err := p.docs.ByID(ctx, doc.ID)
	if err != nil {
		return "", fmt.Errorf("submission: loading document %s: %w", doc.ID, err)
	}
	fileID, recorded, err := p.push(ctx, upstreamAppID, cur)
	if err != nil {
		return "", err
	}
	if err := recorded(); err != nil {
		return "", err
	}
	return fileID, nil
}

// push is PushDocument on a row just read. Once the upstream holds the file,
// the row's record of it is written beside the caller: recorded waits for it.
func (p *Proxy) push(ctx context.Context, upstreamAppID string, cur *models.Document) (fileID string, recorded func() error, err error) {
	if cur.UpstreamStatus == documents.UpstreamUploaded && cur.UpstreamFileID != nil && *cur.UpstreamFileID != "" {
		return *cur.UpstreamFileID, noRecord, nil
	}
	for attempt := 1; ; attempt++ {
		last := attempt == p.opts.MaxAttempts
		fileID, err := p.attempt(ctx, upstreamAppID, cur, last)
		if err == nil {
			at := p.opts.Now()
			return fileID, p.recordBeside(context.WithoutCancel(ctx), func(ctx context.Context) error {
				return p.record(ctx, func(ctx context.Context) error { return p.docs.MarkUploaded(ctx, cur.ID, fileID, at) })
			}), nil
		}
		p.log.Warn("document upload attempt failed", "document_id", cur.ID, "attempt", attempt, "err", err)
		if last || ctx.Err() != nil || !retryable(err) {
			return "", nil, p.fail(ctx, cur.ID, attempt, err)
		}
		if err := p.docs.MarkAttemptFailed(ctx, cur.ID, pushReason(err)); err != nil {
			return "", nil, p.fail(ctx, cur.ID, attempt, err)
		}
		if err := p.opts.Sleep(ctx, p.delay(attempt, err)); err != nil {
			return "", nil, p.fail(ctx, cur.ID, attempt, err)
		}
	}
}

// fail records that the document could not be sent and returns why.
func (p *Proxy) fail(ctx context.Context, docID uuid.UUID, attempts int, err error) error {
	reason := pushReason(err)
	if attempts > 1 {
		reason = fmt.Sprintf("%s (gave up after %d attempts).", strings.TrimSuffix(reason, "."), attempts)
	}
	perr := &PushError{DocumentID: docID, Reason: reason, Attempts: attempts, Err: err, Permanent: permanent(err)}
	if rerr := p.record(ctx, func(ctx context.Context) error { return p.docs.MarkFailed(ctx, docID, reason) }); rerr != nil {
		return errors.Join(perr, rerr)
	}
	return perr
}

// errURLExpiredBeforeStart: the URL's expiry had passed before the upload
// could begin (a slow metadata answer, a clock jump).
var errURLExpiredBeforeStart = errors.New("submission: presigned URL expired before the upload started")

// stepError names the step of an attempt that failed.
type stepError struct {
	step string // "metadata", "storage" or "upload"
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// attempt posts the metadata and streams the stored bytes to the URL. The
// attempt is recorded while the metadata goes out, and the file id while the
// bytes do, so neither record waits on the upstream nor the upstream on them.
func (p *Proxy) attempt(ctx context.Context, upstreamAppID string, doc *models.Document, last bool) (fileID string, err error) {
	marked := p.recordBeside(ctx, func(ctx context.Context) error { return p.docs.MarkAttempt(ctx, doc.ID) })
	up, err := p.files.CreateFile(ctx, upstreamAppID, upstream.FileMetadata{
		FileType: UpstreamFileType(doc.DocType), Name: doc.DisplayName,
		ContentLength: doc.SizeBytes, ContentType: doc.ContentType,
	})
	if merr := marked(); merr != nil {
		return "", &stepError{"record", merr}
	}
	if err != nil {
		return "", &stepError{"metadata", err}
	}
	idMarked := p.recordBeside(ctx, func(ctx context.Context) error { return p.docs.MarkFileID(ctx, doc.ID, up.FileID) })
	defer func() {
		if merr := idMarked(); merr != nil && err == nil {
			fileID, err = "", &stepError{"record", merr}
		}
	}()
	// On the last attempt the store decides: our clock may differ from the
	// upstream's, and a refusal costs nothing more then.
	if !last && !up.ExpiresAt.IsZero() && !p.opts.Now().Before(up.ExpiresAt) {
		return "", &stepError{"upload", errURLExpiredBeforeStart}
	}
	body, info, err := p.storage.Open(ctx, doc.StorageKey)
	if err != nil {
		return "", &stepError{"storage", err}
	}
	defer body.Close()
	if info.Size != doc.SizeBytes {
		return "", &stepError{"storage", fmt.Errorf("%w: stored object holds %d bytes, the row says %d", errSizeMismatch, info.Size, doc.SizeBytes)}
	}
	err = p.files.UploadToPresignedURL(ctx, up.PresignedURL, body, doc.SizeBytes, doc.ContentType)
	if err != nil {
		return "", &stepError{"upload", err}
	}
	return up.FileID, nil
}

var errSizeMismatch = errors.New("submission: stored object size differs from the document row")

// recordBeside starts write at once and returns a function that waits for
// its outcome.
func (p *Proxy) recordBeside(ctx context.Context, write func(context.Context) error) func() error {
	done := make(chan error, 1)
	go func() { done <- write(ctx) }()
	return sync.OnceValue(func() error { return <-done })
}

// retryable reports whether another attempt, with a fresh URL, may succeed.
func retryable(err error) bool {
	var se *stepError
	if !errors.As(err, &se) {
		return false
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case se.step == "record":
		return false
	case se.step == "storage":
		return !errors.Is(err, documents.ErrNotFound) && !errors.Is(err, errSizeMismatch)
	case errors.Is(err, upstream.ErrPresignedURLExpired), errors.Is(err, errURLExpiredBeforeStart):
		return true
	}
	// A refusal that repeating cannot fix (a bad field, a bad signature)
	// stops at once; anything else — no answer, 429, 5xx — is tried again.
	return !upstream.IsPermanent(err)
}

// permanent reports failures that no later push can fix by itself.
func permanent(err error) bool {
	var se *stepError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, documents.ErrNotFound), errors.Is(err, errSizeMismatch):
		return true
	case errors.As(err, &se) && (se.step == "metadata" || se.step == "upload"):
		return upstream.IsPermanent(err)
	}
	return false
}

// delay is the wait before the next attempt: none after an expired URL,
// which only needs a fresh one, otherwise exponential backoff.
func (p *Proxy) delay(attempt int, err error) time.Duration {
	if errors.Is(err, upstream.ErrPresignedURLExpired) || errors.Is(err, errURLExpiredBeforeStart) {
		return 0
	}
	d := p.opts.BaseDelay << (attempt - 1)
	if d <= 0 || d > p.opts.MaxDelay {
		d = p.opts.MaxDelay
	}
	return d
}

// record writes a final status even when ctx has ended (the usual case of
// a cancelled push), so the row never stays "uploading" for no reason.
func (p *Proxy) record(ctx context.Context, write func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), documentRecordTimeout)
	defer cancel()
	return write(ctx)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SendDocuments uploads docs (the push's DocumentSender) and says, for each
// failure, whether trying again later can help: a refusal by the upstream, or
// a stored file that is gone or damaged, needs the rep; no answer, 5xx and
// interruptions are retried later.
func (p *Proxy) SendDocuments(ctx context.Context, upstreamAppID string, docs []models.Document, concurrency int) []DocumentOutcome {
	results := p.pushAll(ctx, upstreamAppID, docs, concurrency, true)
	out := make([]DocumentOutcome, len(results))
	for i, r := range results {
		out[i] = DocumentOutcome{Document: r.Document, Err: r.Err, Recorded: r.recorded}
		if r.Err == nil {
			continue
		}
		out[i].Reason = "The file could not be sent to the processor."
		out[i].Permanent = upstream.IsPermanent(r.Err) || errors.Is(r.Err, documents.ErrNotFound)
		var pe *PushError
		if errors.As(r.Err, &pe) {
			out[i].Reason = pe.Reason
			out[i].Permanent = pe.Permanent
		}
	}
	return out
}
