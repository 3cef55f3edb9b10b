package insights

import (
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
)

// Breakdowns of the times.
const (
	ByRep     = "rep"
	ByPricing = "pricing"
)

// defaultDays is the period shown without a choice: the last 90 days.
const defaultDays = 90

// maxDays bounds a period, so that one request reads a bounded number of rows.
const maxDays = 3 * 366

// Filters are the page's choices, as typed.
type Filters struct {
	From, To string
	Owner    string
	Pricing  string
	By       string
}

// filtersFrom reads the choices of a request.
func filtersFrom(v url.Values) Filters {
	return Filters{
		From: strings.TrimSpace(v.Get("from")), To: strings.TrimSpace(v.Get("to")),
		Owner: strings.TrimSpace(v.Get("owner")), Pricing: strings.TrimSpace(v.Get("pricing")), By: v.Get("by"),
	}
}

// Values encodes the choices for links (the CSV beside the page).
func (f Filters) Values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"from": f.From, "to": f.To, "owner": f.Owner, "pricing": f.Pricing, "by": f.By} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// defaultPeriod fills an empty end with today and an empty start with the
// day that makes the period defaultDays long, in loc.
func (f *Filters) defaultPeriod(now time.Time, loc *time.Location) {
	today := now.In(loc)
	if f.To == "" {
		f.To = today.Format(time.DateOnly)
	}
	if f.From == "" {
		to, err := time.ParseInLocation(time.DateOnly, f.To, loc)
		if err != nil {
			to = today
		}
		f.From = to.AddDate(0, 0, -(defaultDays - 1)).Format(time.DateOnly)
	}
}

// period reads the first and the last day, adding to errs a date that is no
// date, an end before the start, or a period over maxDays.
func (f *Filters) period(loc *time.Location, errs apperr.FieldErrors) (from, to time.Time) {
	from, err := time.ParseInLocation(time.DateOnly, f.From, loc)
	if err != nil {
		errs.Add("from", "From must be a date, like 2026-01-31.")
	}
	to, err = time.ParseInLocation(time.DateOnly, f.To, loc)
	if err != nil {
		errs.Add("to", "To must be a date, like 2026-03-31.")
	}
	if len(errs) > 0 {
		return from, to
	}
	switch {
	case to.Before(from):
		errs.Add("to", "To must be on or after From.")
	case to.Sub(from) > maxDays*24*time.Hour:
		errs.Add("from", "Choose a period of at most three years.")
	}
	return from, to
}

// chosenID reads the id of a chosen rep or pricing model: nil when none was
// chosen; one that is no id adds message at field to errs.
func chosenID(s, field, message string, errs apperr.FieldErrors) *uuid.UUID {
	if s == "" {
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		errs.Add(field, message)
	}
	return &id
}

// query checks the choices and turns them into a Query: the period's dates are days in
// loc (the viewer's zone), both included. Empty dates default to the last 90 days.
func (f *Filters) query(now time.Time, loc *time.Location) (Query, apperr.FieldErrors) {
	errs := apperr.FieldErrors{}
	f.defaultPeriod(now, loc)
	from, to := f.period(loc, errs)
	q := Query{From: from, To: to.AddDate(0, 0, 1)}
	q.Owner = chosenID(f.Owner, "owner", "Choose a rep from the list.", errs)
	q.Pricing = chosenID(f.Pricing, "pricing", "Choose a pricing model from the list.", errs)
	if f.By != ByRep && f.By != ByPricing {
		f.By = ""
	}
	if len(errs) > 0 {
		return q, errs
	}
	return q, nil
}
