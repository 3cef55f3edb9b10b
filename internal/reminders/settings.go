package reminders

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/database"
)

// Setting is how an admin configured one kind of reminder.
type Setting struct {
	Kind    Kind
	Enabled bool
	// AfterDays is when the first goes out, counted from when the state began (0: at
	// once); IntervalDays the days between one and the next; MaxSends how many at most
	// while the state lasts.
	AfterDays, IntervalDays, MaxSends int
	// DigestWeekday is the day of the weekly digest (KindStaleDrafts only).
	DigestWeekday time.Weekday
	UpdatedAt     time.Time
	UpdatedBy     *uuid.UUID
}

// After and Interval are the setting's days as durations.
func (s Setting) After() time.Duration { return time.Duration(s.AfterDays) * 24 * time.Hour }

// Interval is the wait between one reminder and the next.
func (s Setting) Interval() time.Duration { return time.Duration(s.IntervalDays) * 24 * time.Hour }

// Settings are the settings of every kind.
type Settings map[Kind]Setting

// Bounds of the settings, also checked by the table.
const (
	maxDays  = 365
	maxSends = 10
)

// loadSettings reads the settings of every kind.
func loadSettings(ctx context.Context, q database.Querier) (Settings, error) {
	rows, err := q.Query(ctx, `SELECT kind, enabled, after_days, interval_days, max_sends, digest_weekday, updated_at, updated_by
		FROM reminder_settings`)
	if err != nil {
		return nil, fmt.Errorf("load reminder settings: %w", err)
	}
	out := Settings{}
	defer rows.Close()
	for rows.Next() {
		var s Setting
		var weekday int16
		if err := rows.Scan(&s.Kind, &s.Enabled, &s.AfterDays, &s.IntervalDays, &s.MaxSends, &weekday, &s.UpdatedAt, &s.UpdatedBy); err != nil {
			return nil, fmt.Errorf("read reminder settings: %w", err)
		}
		s.DigestWeekday = time.Weekday(weekday)
		out[s.Kind] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read reminder settings: %w", err)
	}
	for _, k := range Kinds() {
		if _, ok := out[k]; !ok {
			return nil, errors.New("reminder settings: kind " + string(k) + " is missing")
		}
	}
	return out, nil
}

// saveSettings stores every kind's setting.
func saveSettings(ctx context.Context, tx pgx.Tx, set Settings, by uuid.UUID, now time.Time) error {
	for _, k := range Kinds() {
		s := set[k]
		_, err := tx.Exec(ctx, `UPDATE reminder_settings SET enabled = $2, after_days = $3, interval_days = $4, max_sends = $5,
				digest_weekday = $6, updated_by = $7, updated_at = $8 WHERE kind = $1`,
			string(k), s.Enabled, s.AfterDays, s.IntervalDays, s.MaxSends, int16(s.DigestWeekday), by, now)
		if err != nil {
			return fmt.Errorf("save reminder settings: %w", err)
		}
	}
	return nil
}

// SettingsForm is the admin page's form as typed.
type SettingsForm struct {
	Values url.Values
}

// Field names the input of one setting of a kind: "not_opened.after_days".
func Field(k Kind, name string) string { return string(k) + "." + name }

// Parse reads the typed form into settings, keeping the admin's input for a page shown
// again; a value out of bounds is a message beside its field.
func (f SettingsForm) Parse() (Settings, apperr.FieldErrors) {
	out := Settings{}
	errs := apperr.FieldErrors{}
	for _, k := range Kinds() {
		s := Setting{Kind: k, Enabled: f.Values.Get(Field(k, "enabled")) != ""}
		s.AfterDays = f.number(errs, Field(k, "after_days"), 0, maxDays, "Days before the first")
		s.MaxSends = f.number(errs, Field(k, "max_sends"), 1, maxSends, "The number of reminders")
		if k == KindStaleDrafts {
			s.IntervalDays = 7
			day := f.number(errs, Field(k, "weekday"), 0, 6, "The day of the digest")
			s.DigestWeekday = time.Weekday(day)
		} else {
			s.IntervalDays = f.number(errs, Field(k, "interval_days"), 1, maxDays, "Days between reminders")
		}
		out[k] = s
	}
	if len(errs) == 0 {
		return out, nil
	}
	return out, errs
}

func (f SettingsForm) number(errs apperr.FieldErrors, field string, lo, hi int, label string) int {
	raw := strings.TrimSpace(f.Values.Get(field))
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		errs.Add(field, fmt.Sprintf("%s must be a whole number from %d to %d.", label, lo, hi))
		return 0
	}
	return n
}
