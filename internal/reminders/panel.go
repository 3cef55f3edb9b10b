package reminders

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// panelLimit bounds the reminders listed on an application's page.
const panelLimit = 50

// Panel is what an application's page shows of its reminders.
type Panel struct {
	App *models.Application
	// Sent lists what was sent, newest first.
	Sent []Sent
	// PausedAt is when a rep paused the reminders, or nil.
	PausedAt *time.Time
	// Next says what comes next, in words; NextAt, when set, is when.
	Next   string
	NextAt *time.Time
}

// Panel returns the reminders of an application u may see.
func (s *Service) Panel(ctx context.Context, u *models.User, id uuid.UUID) (*Panel, error) {
	a, err := s.d.Apps.Visible(ctx, nil, u, id)
	if err != nil {
		return nil, err
	}
	q := s.d.Apps.Querier()
	p := &Panel{App: a}
	rows, err := sentFor(ctx, q, a.ID, panelLimit)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		p.Sent = append(p.Sent, Sent{Kind: r.Kind, Number: r.Seq, At: r.SentAt, To: r.To, Delivery: delivery(r)})
	}
	if p.PausedAt, err = pausedAt(ctx, q, a.ID); err != nil {
		return nil, err
	}
	set, err := loadSettings(ctx, q)
	if err != nil {
		return nil, err
	}
	p.Next, p.NextAt, err = s.next(ctx, a, set, p.PausedAt != nil)
	return p, err
}

func delivery(r sentRow) string {
	if r.Status == "" {
		return ""
	}
	return mail.Message{Status: mail.Status(r.Status), Attempts: r.Attempts}.StatusText()
}

// next says which reminder comes next for a, and when.
func (s *Service) next(ctx context.Context, a *models.Application, set Settings, paused bool) (string, *time.Time, error) {
	k, episode, ok := Applies(a)
	switch {
	case paused:
		return "Paused: no reminder about this application goes out until someone resumes them.", nil, nil
	case !ok:
		return "No reminder applies to this application now.", nil, nil
	case !set[k].Enabled:
		return k.Title() + ": turned off by an admin.", nil, nil
	}
	cfg := set[k]
	n, last, err := series(ctx, s.d.Apps.Querier(), k, a.ID, episode)
	if err != nil {
		return "", nil, err
	}
	if n >= cfg.MaxSends {
		return fmt.Sprintf("%s: all %d reminders of this kind were sent.", k.Title(), cfg.MaxSends), nil, nil
	}
	at := episode.Add(cfg.After())
	if n > 0 && k != KindStaleDrafts {
		at = last.Add(cfg.Interval())
	}
	number := strconv.Itoa(n+1) + " of " + strconv.Itoa(cfg.MaxSends)
	switch k {
	case KindStaleDrafts:
		return "Listed in the owner's weekly digest (" + number + ") while it stays untouched, from", &at, nil
	case KindProcessingPending:
		return "The owner is told that the processor needs more information (" + number + ") at", &at, nil
	}
	return "The merchant is reminded of their link (" + number + ") at", &at, nil
}

// SetPaused pauses or resumes the reminders of an application u may see, with an entry
// in its audit trail.
func (s *Service) SetPaused(ctx context.Context, u *models.User, id uuid.UUID, paused bool) error {
	now := s.d.Now().UTC()
	return s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		a, err := s.d.Apps.Visible(ctx, tx, u, id)
		if err != nil {
			return err
		}
		changed, err := setPaused(ctx, tx, a.ID, paused, u.ID, now)
		if err != nil || !changed {
			return err
		}
		action := audit.ActionRemindersResumed
		if paused {
			action = audit.ActionRemindersPaused
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Application(a.ID), Actor: &u.ID, Action: action, At: now})
	})
}

// Settings returns the admin's settings of every kind.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	return loadSettings(ctx, s.d.Apps.Querier())
}

// SaveSettings stores the settings typed by an admin, or refuses them with a message
// beside each field at fault.
func (s *Service) SaveSettings(ctx context.Context, u *models.User, form SettingsForm) (Settings, error) {
	set, errs := form.Parse()
	if errs != nil {
		return set, errs.Err()
	}
	err := s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		return saveSettings(ctx, tx, set, u.ID, s.d.Now().UTC())
	})
	return set, err
}
