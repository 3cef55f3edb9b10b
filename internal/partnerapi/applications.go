package partnerapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/workspace"
)

// MergePatchType is the media type of a JSON merge patch (RFC 7396).
const MergePatchType = "application/merge-patch+json"

// Messages about the owning rep of a new application.
const (
	msgOwnerNeeded  = "Name the sales rep who owns the application: a key for the whole reseller acts as no rep of its own."
	msgOwnerIsKeys  = "A key acting as a sales rep creates that rep's applications; leave ownerId out or give the rep's id."
	msgOwnerUnknown = "No active sales rep or admin has this id."
)

// CreateApplication starts a draft with any of the workspace's fields (all or nothing:
// a refused value answers 422 and stores nothing).
func (h *Handlers) CreateApplication(c echo.Context) error {
	body, err := readObject(c)
	if err != nil {
		return err
	}
	in, err := readApplication(body, true)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	owner, err := h.ownerOfNew(ctx, principalOf(c), in.OwnerID)
	if err != nil {
		return err
	}
	rec, err := h.d.Workspace.CreateFrom(ctx, owner, in.Change)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/applications/"+rec.App.ID.String())
	return h.answerApplication(c, http.StatusCreated, rec)
}

// ownerOfNew is the owning rep of a new application: a rep-scoped key's rep, or the
// staff member a reseller-wide key names.
func (h *Handlers) ownerOfNew(ctx context.Context, p *apikeys.Principal, named *uuid.UUID) (*models.User, error) {
	if p.Rep != nil {
		if named != nil && *named != p.Rep.ID {
			return nil, invalid(map[string]string{"/ownerId": msgOwnerIsKeys})
		}
		return p.Rep, nil
	}
	if named == nil {
		return nil, invalid(map[string]string{"/ownerId": msgOwnerNeeded})
	}
	u, err := h.d.Apps.User(ctx, nil, *named)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (!u.Active || !u.IsStaff())) {
		return nil, invalid(map[string]string{"/ownerId": msgOwnerUnknown})
	}
	return u, err
}

// GetApplication answers an application the key may see, with its ETag.
func (h *Handlers) GetApplication(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	rec, err := h.d.Workspace.Load(c.Request().Context(), viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	return h.answerApplication(c, http.StatusOK, rec)
}

// UpdateApplication applies a JSON merge patch (RFC 7396; owners matched by id) to a
// draft, if it still has the version of If-Match: 428 without it, 412 once it changed.
func (h *Handlers) UpdateApplication(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	version, err := ifMatch(c)
	if err != nil {
		return err
	}
	body, err := readObject(c, MergePatchType, echo.MIMEApplicationJSON)
	if err != nil {
		return err
	}
	in, err := readApplication(body, false)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	actor, err := h.actorFor(ctx, principalOf(c), id)
	if err != nil {
		return err
	}
	rec, _, err := h.d.Workspace.Change(ctx, actor, id, version, in.Change)
	var stale *workspace.StaleError
	if errors.As(err, &stale) {
		c.Response().Header().Set("ETag", etag(stale.Current.Version))
		return problem(http.StatusPreconditionFailed, CodePreconditionFailed,
			"The application changed since the version If-Match names; read it again and apply your change to the current version.")
	}
	if err != nil {
		return err
	}
	return h.answerApplication(c, http.StatusOK, rec)
}

// answerApplication answers an application with its ETag.
func (h *Handlers) answerApplication(c echo.Context, status int, rec *applications.Record) error {
	c.Response().Header().Set("ETag", etag(rec.App.Version))
	return ok(c, status, applicationBody(rec))
}

// etag is the entity tag of an application's version.
func etag(version int) string { return `"` + strconv.Itoa(version) + `"` }

// ifMatch reads the version an update was written against.
func ifMatch(c echo.Context) (int, error) {
	v := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if v == "" {
		return 0, problem(http.StatusPreconditionRequired, CodePreconditionNeeded,
			"Send If-Match with the ETag of the application you read, so a change made meanwhile is never overwritten.")
	}
	n, err := strconv.Atoi(strings.Trim(v, `"`))
	if err != nil || n < 1 || !strings.HasPrefix(v, `"`) || !strings.HasSuffix(v, `"`) {
		return 0, problem(http.StatusPreconditionFailed, CodePreconditionFailed,
			"If-Match names no version of this application; send the ETag a read of it answered.")
	}
	return n, nil
}
