package app

import (
	"github.com/payportal/portal/internal/imports"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/reminders"
)

// wireReminders registers the reminders' periodic job and returns their service.
func wireReminders(queue *jobs.Queue, d reminders.Deps) *reminders.Service {
	svc := reminders.NewService(d)
	jobs.Register(queue, reminders.NewRunWorker(svc))
	queue.AddPeriodic(reminders.RunPeriodicJob())
	return svc
}

// wireImports registers the import's jobs (the import itself, the purge of expired
// files and the backfill of the TIN index) and returns its service.
func wireImports(queue *jobs.Queue, d imports.Deps) *imports.Service {
	svc := imports.NewService(d)
	jobs.Register(queue, imports.NewImportWorker(svc))
	jobs.Register(queue, imports.NewPurgeWorker(svc))
	jobs.Register(queue, imports.NewBackfillWorker(svc))
	queue.AddPeriodic(imports.PurgePeriodicJob())
	queue.AddPeriodic(imports.BackfillPeriodicJob())
	return svc
}
