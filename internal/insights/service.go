package insights

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
)

// Service computes the insights.
type Service struct {
	apps *applications.Store
	now  func() time.Time
}

// NewService returns the insights service; it only reads.
func NewService(apps *applications.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{apps: apps, now: now}
}

// Option is one choice of a filter.
type Option struct {
	Value, Label string
}

// Result is a report with the choices that made it.
type Result struct {
	Filters Filters
	Errors  apperr.FieldErrors
	Report  Report
	// Own says the report is of the viewer's own applications (a rep's view).
	Own bool
	// Owners and PricingModels are the filters' choices.
	Owners        []Option
	PricingModels []Option
	// Period says what the report covers, in words.
	Period string
}

// Report computes the insights u may see with the choices typed: a rep sees their own
// applications only, whatever they ask.
func (s *Service) Report(ctx context.Context, u *models.User, f Filters) (*Result, error) {
	loc := location(u.TimeZone)
	now := s.now()
	res := &Result{Own: !u.IsAdmin()}
	if res.Own {
		f.Owner = ""
		if f.By == ByRep {
			f.By = ""
		}
	}
	q, errs := f.query(now, loc)
	if res.Own {
		id := u.ID
		q.Owner = &id
	}
	if f.By == "" {
		f.By = ByPricing
		if !res.Own {
			f.By = ByRep
		}
	}
	res.Filters, res.Errors = f, errs
	var err error
	if res.PricingModels, err = s.pricingOptions(ctx); err != nil {
		return nil, err
	}
	if !res.Own {
		if res.Owners, err = s.ownerOptions(ctx); err != nil {
			return nil, err
		}
	}
	if errs != nil {
		return res, errs.Err()
	}
	list, err := journeys(ctx, s.apps.Querier(), q)
	if err != nil {
		return nil, err
	}
	res.Report = Compute(list, now)
	res.Period = q.From.In(loc).Format("2 January 2006") + " to " + q.To.AddDate(0, 0, -1).In(loc).Format("2 January 2006")
	return res, nil
}

func (s *Service) ownerOptions(ctx context.Context) ([]Option, error) {
	users, err := s.apps.Users(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := []Option{{Value: "", Label: "All reps"}}
	for _, u := range users {
		if u.Role == models.RoleSalesRep || u.Role == models.RoleAdmin {
			out = append(out, Option{Value: u.ID.String(), Label: u.DisplayName()})
		}
	}
	return out, nil
}

func (s *Service) pricingOptions(ctx context.Context) ([]Option, error) {
	rows, err := s.apps.Querier().Query(ctx, `SELECT id, name FROM pricing_models ORDER BY lower(name), id`)
	if err != nil {
		return nil, fmt.Errorf("list pricing models: %w", err)
	}
	type model struct {
		ID   uuid.UUID
		Name string
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[model])
	if err != nil {
		return nil, fmt.Errorf("list pricing models: %w", err)
	}
	out := []Option{{Value: "", Label: "All pricing models"}}
	for _, m := range list {
		out = append(out, Option{Value: m.ID.String(), Label: m.Name})
	}
	return out, nil
}

// location is a user's time zone, or UTC.
func location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}
