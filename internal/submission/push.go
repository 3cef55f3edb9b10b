package submission

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// PushMaxAttempts bounds the runs of one submission's push. With the queue's
// default backoff (attempt⁴ seconds) the last run comes about two and a half
// hours after the first; then the application goes back to the rep.
const PushMaxAttempts = 8

// recordTimeout bounds the write of a failed run's outcome.
const recordTimeout = 10 * time.Second

// DefaultDocumentConcurrency bounds the documents of one application uploaded
// at once. Five covers the usual set in one round, so the push takes about as
// long as its slowest document.
const DefaultDocumentConcurrency = 5

// PushArgs is the job that pushes one submission of an application upstream.
type PushArgs struct {
	ApplicationID uuid.UUID `json:"application_id"`
	// Submission is the application's submission_count when it was submitted.
	Submission int `json:"submission"`
}

// Kind names the job in River.
func (PushArgs) Kind() string { return "application_push" }

// liveJobStates are the states in which a push job is still going to run.
// A job in any of them blocks a second one with the same arguments, so two
// portal processes (or the reconciler) never push the same submission twice;
// a cancelled, discarded or completed job does not block a new one.
var liveJobStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled,
}

// InsertOpts puts the job on the pushes' own queue, makes it unique per
// submission and bounds its attempts.
func (PushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       jobs.QueuePush,
		MaxAttempts: PushMaxAttempts,
		UniqueOpts:  river.UniqueOpts{ByArgs: true, ByState: liveJobStates},
	}
}

// LeaseKey makes one application's pushes exclusive: a run holds the
// application's lease while it works (even while a slow upload goes on), so
// no two runs ever push it at the same time, whichever jobs they belong to.
func (a PushArgs) LeaseKey() string { return "application_push:" + a.ApplicationID.String() }

// Upstream is what the push needs of the upstream API; *upstream.Client
// implements it.
type Upstream interface {
	StartApplication(ctx context.Context, req upstream.StartRequest) (string, error)
	PatchApplication(ctx context.Context, applicationID string, data upstream.ApplicationData) error
	CreateLink(ctx context.Context, applicationID string) (string, error)
	GetLink(ctx context.Context, applicationID string) (string, error)
}

// PricingModels is what the push needs of the pricing models: the one whose
// code the upstream refused, to name it. *pricing.Service implements it.
type PricingModels interface {
	Get(ctx context.Context, id uuid.UUID) (*models.PricingModel, error)
}

// DocumentSender uploads documents to an upstream application, skipping those
// already uploaded and recording each outcome on its documents row. The
// document proxy (proxy.go) implements it.
type DocumentSender interface {
	SendDocuments(ctx context.Context, upstreamAppID string, docs []models.Document, concurrency int) []DocumentOutcome
}

// DocumentOutcome is what happened to one document.
type DocumentOutcome struct {
	Document models.Document
	// Err is nil when the upstream holds the document.
	Err error
	// Permanent: sending it again unchanged cannot work (the upstream refused
	// it, or the stored file is gone); the rep must act.
	Permanent bool
	// Reason says why it failed, in plain words.
	Reason string
	// Recorded, when not nil, waits for the document row's record of a
	// successful upload, still being written when SendDocuments returns so
	// that the link need not wait for it. The push waits for every one
	// before it records the link, and before it ends.
	Recorded func() error
}

// PushDeps are the collaborators of the push worker.
type PushDeps struct {
	// Apps writes the applications row; Docs lists the documents to send.
	Apps *applications.Store
	Docs *documents.Store
	// Statuses applies the status webhooks that came before the upstream id.
	Statuses *handoff.UpstreamStatusRecorder
	Sealer   *applications.Sealer
	// Upstream is nil when the portal has no upstream configured; every push
	// then stops with a message for the rep.
	Upstream  Upstream
	Documents DocumentSender
	Outbox    *mail.Outbox
	// Handoff builds the e-mail that gives the merchant their link.
	Handoff *handoff.Mailer
	// PricingModels names the pricing model of a refused pricing code; nil
	// names the code alone.
	PricingModels PricingModels
	// Announcer tells partners the merchant's link exists; nil tells no one.
	Announcer Announcer
	// DocumentConcurrency bounds uploads at once; default 5.
	DocumentConcurrency int
	// MaxRuns bounds the runs of one submission, also across jobs the
	// reconciler starts; default PushMaxAttempts.
	MaxRuns int
	Now     func() time.Time
	Log     *slog.Logger
}

// PushWorker pushes a submitted application upstream: start, then PATCH the
// data and upload the documents at once, then (only when both succeeded)
// create the link, lock the application and e-mail the merchant. Each step is recorded when it succeeds, so a run that stops
// halfway (crash, timeout, transient failure) is resumed by the next one. The
// upstream application is started with the application's id as
// externalApplicationId and its id stored at once, so there is never a
// second one.
type PushWorker struct {
	river.WorkerDefaults[PushArgs]
	d PushDeps
}

// NewPushWorker returns the worker; register it with jobs.Register.
func NewPushWorker(d PushDeps) *PushWorker {
	if d.DocumentConcurrency <= 0 {
		d.DocumentConcurrency = DefaultDocumentConcurrency
	}
	if d.MaxRuns <= 0 {
		d.MaxRuns = PushMaxAttempts
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &PushWorker{d: d}
}

// errMovedOn: the application left this submission's push (it is linked,
// back with the rep, deleted, or submitted again); the job has nothing to do.
var errMovedOn = errors.New("submission: application moved on")

// Work runs one attempt of the push.
func (w *PushWorker) Work(ctx context.Context, job *river.Job[PushArgs]) error {
	st := &pushStore{apps: w.d.Apps, docs: w.d.Docs, statuses: w.d.Statuses, now: w.d.Now}
	a, err := st.begin(ctx, job.Args)
	if errors.Is(err, errMovedOn) {
		return nil
	}
	if err != nil {
		return err
	}
	log := w.d.Log.With("application_id", a.ID, "submission", job.Args.Submission, "run", a.PushAttempts, "job_attempt", job.Attempt)
	err = w.push(ctx, st, a)
	if err == nil || errors.Is(err, errMovedOn) {
		return nil
	}
	pe := classifyPush(err)
	last := job.Attempt >= job.MaxAttempts || a.PushAttempts >= w.d.MaxRuns
	// The outcome is recorded even when the job's context ended (a timeout,
	// a shutdown): that is when it matters most.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if !pe.permanent && !last {
		log.Warn("application push will be retried", "step", pe.step, "err", err)
		if rerr := st.noteRetry(rctx, a, pe.message); rerr != nil && !errors.Is(rerr, errMovedOn) {
			log.Error("record push retry", "err", rerr)
		}
		return err
	}
	msg := pe.message
	if !pe.permanent {
		msg += " The portal tried " + timesText(a.PushAttempts) + " and stopped; submit again to retry."
	}
	log.Warn("application push stopped; back to the rep", "step", pe.step, "permanent", pe.permanent, "err", err)
	if rerr := st.needsAttention(rctx, a, pe.step, msg, pe.kind); rerr != nil && !errors.Is(rerr, errMovedOn) {
		// Not recorded: let River retry, which reaches this point again.
		return errors.Join(err, rerr)
	}
	return river.JobCancel(err)
}

// push runs the steps not yet recorded on a.
func (w *PushWorker) push(ctx context.Context, st *pushStore, a *models.Application) error {
	if w.d.Upstream == nil {
		return permanentFailure(stepStart, "The portal has no connection to the processor configured. An admin needs to set the upstream settings; then submit again.", errNoUpstream)
	}
	// The documents to send are listed while the upstream application starts.
	var (
		listed  sync.WaitGroup
		docs    []models.Document
		listErr error
	)
	docsToRecord := a.DocumentsSentAt == nil
	if docsToRecord {
		listed.Go(func() { docs, listErr = st.documents(ctx, a.ID) })
	}
	upID, startedOnce, err := w.startUpstream(ctx, st, a, &listed)
	if startedOnce == nil {
		return err
	}
	// Every PATCH must come before the link; the documents may go up beside
	// it, as soon as the upstream application exists.
	var (
		wg               sync.WaitGroup
		dataErr, docsErr error
		dataNotResent    bool
	)
	if a.DataSentAt == nil {
		wg.Go(func() { dataNotResent, dataErr = w.sendData(ctx, st, a, upID, startedOnce) })
	}
	docsRecorded := noRecord
	if docsToRecord {
		wg.Go(func() {
			if listed.Wait(); listErr != nil {
				docsErr = listErr
				return
			}
			docsRecorded, docsErr = w.sendDocuments(ctx, a, upID, docs)
		})
	}
	wg.Wait()
	if err := startedOnce(); err != nil {
		return errors.Join(err, docsRecorded())
	}
	a.UpstreamApplicationID = &upID
	if err := firstFailure(dataErr, docsErr); err != nil {
		return sendFailed(ctx, st, a, err, docsToRecord && docsErr == nil, docsRecorded)
	}
	return w.link(ctx, st, a, upID, linkInputs{dataNotResent: dataNotResent, recordDocuments: docsToRecord, docsRecorded: docsRecorded})
}

// startUpstream starts the upstream application unless it has an id already,
// and returns the id and a function that waits for the id's record. started is
// the outcome of storing the id: done already, or running beside the first
// calls that use it. Each step waits for it before recording itself, so the
// records keep the steps' order; the upstream needs no wait, since a start
// repeated with our id returns the same application. A nil function means the
// push stops here, with the error returned (nil when the refusal was handled).
func (w *PushWorker) startUpstream(ctx context.Context, st *pushStore, a *models.Application, listed *sync.WaitGroup) (string, func() error, error) {
	started := make(chan error, 1)
	wait := sync.OnceValue(func() error { return <-started })
	if upID := deref(a.UpstreamApplicationID); upID != "" {
		started <- nil
		return upID, wait, nil
	}
	upID, err := w.d.Upstream.StartApplication(ctx, upstream.StartRequest{
		ExternalApplicationID: a.ID.String(), PricingCode: deref(a.SubmittedPricingCode),
	})
	if upstream.IsPricingCodeRefused(err) {
		listed.Wait()
		return "", nil, w.pricingCodeRefused(ctx, a, err)
	}
	if err != nil {
		listed.Wait()
		return "", nil, stepFailed(stepStart, err)
	}
	go func() { started <- st.started(ctx, a.ID, a.SubmissionCount, upID) }()
	return upID, wait, nil
}

// sendFailed records what went up when the data or the documents did not:
// the documents' records, and, when the documents all went up though the data
// did not (docsUp), that they are sent, so the next run sends the data alone.
func sendFailed(ctx context.Context, st *pushStore, a *models.Application, err error, docsUp bool, docsRecorded func() error) error {
	if rerr := docsRecorded(); rerr != nil {
		return errors.Join(err, rerr)
	}
	if docsUp && !errors.Is(err, errMovedOn) {
		if rerr := st.documentsSent(ctx, a); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	return err
}

// linkInputs is what the last step learns from the ones before it.
type linkInputs struct {
	// dataNotResent: the link already existed upstream (see alreadyLinked).
	dataNotResent bool
	// recordDocuments: this run uploaded the documents and has yet to record it.
	recordDocuments bool
	// docsRecorded waits for the documents' rows to record their uploads.
	docsRecorded func() error
}

// sendData PATCHes the sealed snapshot and, once the upstream id is stored,
// records it. notResent: the link already existed upstream, which refuses
// the PATCH (see alreadyLinked).
func (w *PushWorker) sendData(ctx context.Context, st *pushStore, a *models.Application, upID string, started func() error) (notResent bool, err error) {
	data, err := w.d.Sealer.OpenSnapshot(a)
	if err != nil {
		return false, permanentFailure(stepData, "The submitted data could not be read back; submit again.", err)
	}
	if err := w.d.Upstream.PatchApplication(ctx, upID, data); err != nil {
		if !w.alreadyLinked(ctx, upID, err) {
			return false, stepFailed(stepData, err)
		}
		// Documents can still be added; the link below is the existing one.
		return true, nil
	}
	if err := started(); err != nil {
		return false, err
	}
	return false, st.dataSent(ctx, a)
}

// firstFailure is what stops a push whose data and documents went up at
// once: nothing when both succeeded; errMovedOn when either found the
// application gone on; a failure that needs the rep before one that a retry
// may fix; otherwise the data's before the documents', as in the steps' order.
func firstFailure(dataErr, docsErr error) error {
	switch {
	case dataErr == nil:
		return docsErr
	case docsErr == nil:
		return dataErr
	case errors.Is(dataErr, errMovedOn) || errors.Is(docsErr, errMovedOn):
		return errMovedOn
	case !classifyPush(dataErr).permanent && classifyPush(docsErr).permanent:
		return docsErr
	}
	return dataErr
}

// alreadyLinked reports whether a PATCH was refused (409) because the link
// exists upstream, which refuses PATCH from then on. That happens only when an
// earlier run created the link but never recorded it (its answer was lost, the
// push stopped, the rep resubmitted); that link is then the hand-off, and the
// merchant corrects the details upstream.
func (w *PushWorker) alreadyLinked(ctx context.Context, upID string, patchErr error) bool {
	var ue *upstream.Error
	if !errors.As(patchErr, &ue) || ue.StatusCode != http.StatusConflict {
		return false
	}
	link, err := w.d.Upstream.GetLink(ctx, upID)
	return err == nil && link != ""
}

// sendDocuments uploads the documents the upstream does not hold yet; link
// records that the upstream holds them all. recorded waits for the rows'
// records of the uploads, which are written beside what comes next.
func (w *PushWorker) sendDocuments(ctx context.Context, a *models.Application, upID string, docs []models.Document) (recorded func() error, err error) {
	recorded = noRecord
	if len(docs) > 0 {
		if w.d.Documents == nil {
			return recorded, permanentFailure(stepDocuments, "The portal cannot send documents to the processor (no uploader configured).", errNoUpstream)
		}
		// The largest first: its upload is the longest, so it should be the first to get
		// its URL and to reach the upstream, which answers concurrent requests in turn.
		slices.SortStableFunc(docs, func(x, y models.Document) int { return cmp.Compare(y.SizeBytes, x.SizeBytes) })
		var failed *DocumentOutcome
		outcomes := w.d.Documents.SendDocuments(ctx, upID, docs, w.d.DocumentConcurrency)
		recorded = sync.OnceValue(func() error {
			var errs []error
			for _, o := range outcomes {
				if o.Recorded != nil {
					errs = append(errs, o.Recorded())
				}
			}
			return errors.Join(errs...)
		})
		for _, o := range outcomes {
			if o.Err == nil {
				continue
			}
			// Report a permanent failure first: it needs the rep either way.
			if failed == nil || (o.Permanent && !failed.Permanent) {
				failed = &o
			}
		}
		if failed != nil {
			msg := "Document “" + failed.Document.DisplayName + "”: " + failed.Reason
			return recorded, &pushError{step: stepDocuments, permanent: failed.Permanent, message: msg, err: failed.Err}
		}
	}
	return recorded, nil
}

// noRecord is a record already written: nothing to wait for.
func noRecord() error { return nil }

// link creates the hand-off link and then, in one transaction, records it,
// locks the application and queues the e-mail to the merchant. While the
// upstream makes the link, the e-mail is built and the documents' upload is
// recorded: the link is asked for only once every document is up, and a run
// that fails to record them asks again, which returns the same link.
func (w *PushWorker) link(ctx context.Context, st *pushStore, a *models.Application, upID string, in linkInputs) error {
	var (
		token          string
		msg            mail.Message
		msgErr, docErr error
		beside         sync.WaitGroup
	)
	beside.Go(func() { token, msg, msgErr = w.handoffMessage(ctx, a) })
	if in.recordDocuments {
		beside.Go(func() {
			if docErr = in.docsRecorded(); docErr == nil {
				docErr = st.documentsSent(ctx, a)
			}
		})
	}
	link, err := w.d.Upstream.CreateLink(ctx, upID)
	beside.Wait()
	if err != nil {
		return stepFailed(stepLink, err)
	}
	if err := cmp.Or(docErr, msgErr); err != nil {
		return err
	}
	return st.linked(ctx, a, linkedOutcome{link: link, token: token, dataNotResent: in.dataNotResent}, func(ctx context.Context, tx pgx.Tx) error {
		if msg.To != "" {
			if _, err := w.d.Outbox.Enqueue(ctx, tx, msg); err != nil {
				return err
			}
		}
		if w.d.Announcer == nil {
			return nil
		}
		return w.d.Announcer.ApplicationLinked(ctx, tx, a.ID)
	})
}

// pricingCodeRefused stops the push for good when the upstream refuses the
// pricing code: repeating cannot help until an admin corrects the model's
// code (or has the processor issue it). The message names the model.
func (w *PushWorker) pricingCodeRefused(ctx context.Context, a *models.Application, err error) error {
	code := deref(a.SubmittedPricingCode)
	model := ""
	if w.d.PricingModels != nil && a.PricingModelID != nil {
		if m, merr := w.d.PricingModels.Get(ctx, *a.PricingModelID); merr == nil {
			model = m.Name
		}
	}
	msg := "The processor does not accept the pricing code “" + code + "”"
	if model != "" {
		msg += " of the pricing model “" + model + "”"
	}
	msg += ": it was never issued to us, or it was withdrawn. An admin needs to correct the model's code in Pricing (or ask the processor to issue this one); then submit again."
	var ue *upstream.Error
	if errors.As(err, &ue) && strings.TrimSpace(ue.Message) != "" {
		msg += " The processor said: " + truncate(strings.TrimSpace(ue.Message), 300)
	}
	return &pushError{step: stepStart, permanent: true, message: msg, kind: applications.ErrorKindPricingCode, err: err}
}

// handoffMessage is the merchant's e-mail with a fresh tracking token; its
// To is empty when there is nobody to send it to.
func (w *PushWorker) handoffMessage(ctx context.Context, a *models.Application) (string, mail.Message, error) {
	token, err := handoff.NewOpenToken()
	if err != nil {
		return "", mail.Message{}, err
	}
	msg, err := w.d.Handoff.Message(ctx, a, token)
	if errors.Is(err, handoff.ErrNoContactEmail) {
		// Validation makes this unreachable; the link still goes to the rep.
		w.d.Log.Error("hand-off e-mail not queued", "application_id", a.ID, "err", err)
		return token, mail.Message{}, nil
	}
	return token, msg, err
}

// timesText is "once", "2 times", ...
func timesText(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
