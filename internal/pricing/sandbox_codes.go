package pricing

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/models"
)

// In sandbox mode the operator's enrollment is rehearsed too: every pricing
// model's code is issued to the sandbox as the model is saved (and, at
// start, every current model's), so that the sandbox refuses, as a real
// processor would, only codes nobody issued. Issuing goes through a job,
// retried until the sandbox answers.

// CodeIssuer issues a pricing code at the sandbox; the sandbox admin client
// (internal/upstream/sandboxadmin) implements it.
type CodeIssuer interface {
	IssuePricingCode(ctx context.Context, code, description string) error
}

// CodeQueue enqueues the job that issues a code; *jobs.Queue implements it.
type CodeQueue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// IssueCodesThrough makes the service issue the code of every model it
// saves through q (sandbox mode). Without it, nothing is issued.
func (s *Service) IssueCodesThrough(q CodeQueue) { s.codes = q }

// issueCode enqueues the issue of m's code, once it is saved. A failure to
// enqueue is logged: the save stands, and the next start issues the code.
func (s *Service) issueCode(ctx context.Context, m *models.PricingModel) {
	if s.codes == nil || m == nil || m.Archived() {
		return
	}
	if _, err := s.codes.Insert(ctx, IssueCodeArgs{Code: m.UpstreamCode, Description: m.Name}, nil); err != nil {
		s.log.Error("pricing code not queued for the sandbox", "pricing_model_id", m.ID, "err", err)
	}
}

// IssueCurrentCodes enqueues the issue of every current (not archived)
// model's code: at start, in sandbox mode, for models saved before (or by
// the seed).
func (s *Service) IssueCurrentCodes(ctx context.Context) error {
	if s.codes == nil {
		return nil
	}
	all, err := s.store.ListAll(ctx)
	if err != nil {
		return err
	}
	for i := range all {
		if all[i].Archived() {
			continue
		}
		if _, err := s.codes.Insert(ctx, IssueCodeArgs{Code: all[i].UpstreamCode, Description: all[i].Name}, nil); err != nil {
			return fmt.Errorf("queue pricing code %s: %w", all[i].UpstreamCode, err)
		}
	}
	return nil
}

// IssueCodeArgs is the job that issues one pricing code at the sandbox.
type IssueCodeArgs struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// Kind names the job in River.
func (IssueCodeArgs) Kind() string { return "sandbox_pricing_code" }

// InsertOpts keeps one live job per code and description (a running one
// issues the very same code).
func (IssueCodeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 12, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

// IssueCodeWorker issues codes at the sandbox. Issuing a code twice is
// harmless, so the job is safe to run again.
type IssueCodeWorker struct {
	river.WorkerDefaults[IssueCodeArgs]
	issuer CodeIssuer
}

// NewIssueCodeWorker returns the worker; register it with jobs.Register.
func NewIssueCodeWorker(issuer CodeIssuer) *IssueCodeWorker { return &IssueCodeWorker{issuer: issuer} }

// Work issues the code.
func (w *IssueCodeWorker) Work(ctx context.Context, job *river.Job[IssueCodeArgs]) error {
	return w.issuer.IssuePricingCode(ctx, job.Args.Code, job.Args.Description)
}

// Timeout bounds one attempt.
func (w *IssueCodeWorker) Timeout(*river.Job[IssueCodeArgs]) time.Duration { return 30 * time.Second }
