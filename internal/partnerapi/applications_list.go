package partnerapi

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// Pages of lists.
const (
	defaultLimit = 25
	maxLimit     = 100
)

// ListApplications lists the applications the key may see, oldest change first, in
// cursor pages; state and updatedSince narrow it.
func (h *Handlers) ListApplications(c echo.Context) error {
	q, err := readSinceQuery(c)
	if err != nil {
		return err
	}
	page, err := h.d.Dashboard.ListSince(c.Request().Context(), viewer(principalOf(c)), q)
	if err != nil {
		return err
	}
	data := make([]any, len(page.Rows))
	for i, r := range page.Rows {
		a := &models.Application{ID: r.ID, OwnerID: r.OwnerID, Status: r.Status, UpstreamStatus: r.UpstreamStatus,
			LegalName: r.LegalName, DBA: r.DBA, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
		data[i] = applicationSummary(a)
	}
	var next *string
	if page.Next != nil {
		s := encodeCursor(page.Next.UpdatedAt.UTC().Format(time.RFC3339Nano) + " " + page.Next.ID.String())
		next = &s
	}
	return ok(c, http.StatusOK, map[string]any{"data": data, "nextCursor": next})
}

// readSinceQuery reads the list's query parameters.
func readSinceQuery(c echo.Context) (dashboard.SinceQuery, error) {
	errs := map[string]string{}
	q := dashboard.SinceQuery{Limit: readLimit(c, errs)}
	if s := c.QueryParam("state"); s != "" {
		if states.OutcomeLabel(s) == "" {
			errs["state"] = "Must be one of the states the document lists (draft, submitting, needs_attention, with_merchant, in_review, more_information, boarded, declined, withdrawn)."
		}
		q.Outcome = s
	}
	if s := c.QueryParam("updatedSince"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			errs["updatedSince"] = "Must be an RFC 3339 time, like 2026-12-05T09:30:00Z."
		}
		q.UpdatedSince = t
	}
	if s := c.QueryParam("cursor"); s != "" {
		cur, ok := decodeSinceCursor(s)
		if !ok {
			errs["cursor"] = "Must be a nextCursor a page of this list answered."
		}
		q.After = cur
	}
	if len(errs) > 0 {
		return q, invalidQuery(errs)
	}
	return q, nil
}

// readLimit reads the page size.
func readLimit(c echo.Context, errs map[string]string) int {
	s := c.QueryParam("limit")
	if s == "" {
		return defaultLimit
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLimit {
		errs["limit"] = "Must be a whole number from 1 to 100."
		return defaultLimit
	}
	return n
}

// invalidQuery is a 400 naming the query parameters at fault.
func invalidQuery(errs map[string]string) *Problem {
	p := problem(http.StatusBadRequest, CodeMalformed, "Some query parameters were refused; each is listed in errors.")
	for name, msg := range errs {
		p.Errors = append(p.Errors, FieldProblem{Parameter: name, Detail: msg})
	}
	sortProblems(p.Errors)
	return p
}

// Cursors are opaque to clients: base64url of what the page ended on.
func encodeCursor(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func decodeCursor(s string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return string(b), err == nil && len(s) <= 200
}

func decodeSinceCursor(s string) (*dashboard.SinceCursor, bool) {
	raw, ok := decodeCursor(s)
	at, id, found := strings.Cut(raw, " ")
	if !ok || !found {
		return nil, false
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	u, uerr := uuid.Parse(id)
	if err != nil || uerr != nil {
		return nil, false
	}
	return &dashboard.SinceCursor{UpdatedAt: t, ID: u}, true
}

// GetChecklist answers what is still missing before the application can be submitted,
// as the page's checklist says it.
func (h *Handlers) GetChecklist(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	_, list, err := h.d.Workspace.Checklist(c.Request().Context(), viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	items := []any{}
	for _, s := range list.Sections {
		for _, it := range s.Items {
			items = append(items, map[string]any{"section": s.Name, "sectionTitle": s.Title, "pointer": pointerOf(it.Field), "message": it.Message})
		}
	}
	return ok(c, http.StatusOK, map[string]any{"ready": list.Empty(), "count": list.Count(), "items": items})
}
