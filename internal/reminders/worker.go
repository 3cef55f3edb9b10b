package reminders

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/jobs"
)

// RunInterval is how often the job looks for reminders due: "at once" for the rep's
// notice means within this.
const RunInterval = time.Minute

// RunArgs is the periodic job that sends the reminders due.
type RunArgs struct{}

// Kind names the job in River.
func (RunArgs) Kind() string { return "reminders_run" }

// InsertOpts puts the run on the housekeeping queue: it only decides and records; the
// e-mails it queues go out on the e-mails' own queue (jobs.QueueMail), through the outbox.
func (RunArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobs.QueueDefault} }

// RunWorker runs Service.Run.
type RunWorker struct {
	river.WorkerDefaults[RunArgs]
	svc *Service
}

// NewRunWorker returns the job's worker; register it with jobs.Register and schedule
// it with RunPeriodicJob.
func NewRunWorker(svc *Service) *RunWorker { return &RunWorker{svc: svc} }

// Work sends what is due. A reminder that failed is tried again on the next run; the
// job itself fails only when it could not look for work.
func (w *RunWorker) Work(ctx context.Context, _ *river.Job[RunArgs]) error {
	_, err := w.svc.Run(ctx)
	return err
}

// RunPeriodicJob schedules the job every RunInterval, and once when workers start.
func RunPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(RunInterval),
		func() (river.JobArgs, *river.InsertOpts) { return RunArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}
