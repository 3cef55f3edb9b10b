package workspace

import (
	"context"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/submission"
)

// Workspace gathers what the page of rec shows beside the form, for u.
func (s *Service) Workspace(ctx context.Context, u *models.User, rec *applications.Record) (*Workspace, error) {
	w := &Workspace{}
	var err error
	if w.Pricing, err = s.PricingOptions(ctx, rec.App); err != nil {
		return nil, err
	}
	if w.Checklist, err = s.checklist(ctx, rec, w.Pricing.Current); err != nil {
		return nil, err
	}
	if w.History, err = s.history(ctx, rec.App.ID); err != nil {
		return nil, err
	}
	if w.Documents, err = s.documentLabels(ctx, rec.App.ID); err != nil {
		return nil, err
	}
	if w.Owner, err = s.store.User(ctx, nil, rec.App.OwnerID); err != nil {
		return nil, err
	}
	if w.Submission, err = s.submission(ctx, u, rec.App); err != nil {
		return nil, err
	}
	if w.MerchantPath, err = s.merchantPath(ctx, rec.App.ID); err != nil {
		return nil, err
	}
	if w.Assignees, err = s.assignees(ctx, u); err != nil {
		return nil, err
	}
	return w, nil
}

// documentLabels names the document types uploaded to the application, by
// their titles where known.
func (s *Service) documentLabels(ctx context.Context, appID uuid.UUID) ([]string, error) {
	types, err := s.docs.UploadedTypes(ctx, appID)
	if err != nil {
		return nil, err
	}
	var labels []string
	for _, t := range types {
		label := s.titles[t]
		if label == "" {
			label = t
		}
		labels = append(labels, label)
	}
	return labels, nil
}

// submission is the push and hand-off of the application, nil when there is
// none or no submission room was wired.
func (s *Service) submission(ctx context.Context, u *models.User, app *models.Application) (*submission.View, error) {
	if s.submits == nil {
		return nil, nil
	}
	v, err := s.submits.View(ctx, app)
	if err != nil || v == nil {
		return v, err
	}
	v.ViewerIsAdmin = u.IsAdmin()
	return v, nil
}

// merchantPath is the page of the merchant the application became, or ""
// before it is boarded.
func (s *Service) merchantPath(ctx context.Context, appID uuid.UUID) (string, error) {
	if s.merch == nil {
		return "", nil
	}
	id, ok, err := s.merch.IDOfApplication(ctx, appID)
	if err != nil || !ok {
		return "", err
	}
	return "/merchants/" + id.String(), nil
}

// assignees are the active users an admin may hand the application to;
// none for a rep.
func (s *Service) assignees(ctx context.Context, u *models.User) ([]models.User, error) {
	if !u.IsAdmin() {
		return nil, nil
	}
	users, err := s.store.Users(ctx, nil)
	if err != nil {
		return nil, err
	}
	var active []models.User
	for _, au := range users {
		if au.Active {
			active = append(active, au)
		}
	}
	return active, nil
}
