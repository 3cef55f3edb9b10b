package partnerapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/workspace"
)

// Deps are the rooms whose use cases the API calls: the same as the pages', so that
// validation, the checklist, submission and authorization exist once.
type Deps struct {
	Apps        *applications.Store
	Workspace   *workspace.Service
	Documents   *documents.Service
	Submissions *submission.Submissions
	Resender    *handoff.Resender
	Dashboard   *dashboard.Service
	Merchants   *merchants.Service
	Payments    *payments.Service
	Pricing     *pricing.Service
	Now         func() time.Time
	Log         *slog.Logger
}

// Handlers serves /api/v1.
type Handlers struct{ d Deps }

// NewHandlers returns the API's handlers.
func NewHandlers(d Deps) *Handlers {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Handlers{d: d}
}

// idParam reads a path id; anything but a UUID is 404, as an id nobody may see.
func idParam(c echo.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil, problem(http.StatusNotFound, CodeNotFound, defaultDetail(http.StatusNotFound))
	}
	return id, nil
}

// actorFor is who a write on application id acts as: a rep-scoped key's rep, or for a
// reseller-wide key the application's owning rep (the rooms record and authorize a
// change as a person; the audit entry names the key beside them). An application the
// key may not see is models.ErrNotFound.
func (h *Handlers) actorFor(ctx context.Context, p *apikeys.Principal, id uuid.UUID) (*models.User, error) {
	if p.Rep != nil {
		return p.Rep, nil
	}
	a, err := h.d.Apps.Get(ctx, nil, id)
	if err != nil {
		return nil, err
	}
	if !p.MaySee(a.OwnerID) {
		return nil, models.ErrNotFound
	}
	return h.d.Apps.User(ctx, nil, a.OwnerID)
}
