package app

import (
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
