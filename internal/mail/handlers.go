package mail

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the admin outbox pages.
type Handlers struct {
	outbox *Outbox
	views  *view.Renderer
	// smtpConfigured says whether this instance has an SMTP server, so the page
	// can explain held messages.
	smtpConfigured bool
}

// NewHandlers returns the outbox pages' handlers.
func NewHandlers(outbox *Outbox, views *view.Renderer, smtpConfigured bool) *Handlers {
	return &Handlers{outbox: outbox, views: views, smtpConfigured: smtpConfigured}
}

type listPage struct {
	*ListPage
	Status         Status
	Statuses       []Status
	SMTPConfigured bool
	// PrevPage and NextPage are 0 when there is no such page.
	PrevPage, NextPage int
}

// List renders the outbox, newest first, optionally filtered by status.
func (h *Handlers) List(c echo.Context) error {
	status := Status(c.QueryParam("status"))
	switch status {
	case "", StatusPending, StatusSent, StatusFailed, StatusHeld:
	default:
		return apperr.New(apperr.KindInvalid, "Unknown delivery status.")
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	res, err := h.outbox.List(c.Request().Context(), ListParams{Status: status, Page: page})
	if err != nil {
		return err
	}
	data := listPage{
		ListPage: res, Status: status, SMTPConfigured: h.smtpConfigured,
		Statuses: []Status{StatusPending, StatusSent, StatusFailed, StatusHeld},
		PrevPage: res.Page - 1,
	}
	if res.HasMore {
		data.NextPage = res.Page + 1
	}
	return h.views.Page(c, http.StatusOK, "outbox/list", "Outbox", data)
}

type showPage struct {
	Message        *Message
	SMTPConfigured bool
}

// Show renders one message: its headers, its plain-text part, and its HTML part
// as escaped source (the page's content security policy allows no frames, and
// the HTML came from a template, not from the recipient, so its source is what
// an admin needs to check).
func (h *Handlers) Show(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return apperr.New(apperr.KindNotFound, "No such message.")
	}
	m, err := h.outbox.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "outbox/show", m.Subject, showPage{Message: m, SMTPConfigured: h.smtpConfigured})
}

// Resend queues a fresh copy of a message and shows the copy.
func (h *Handlers) Resend(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return apperr.New(apperr.KindNotFound, "No such message.")
	}
	var actor *uuid.UUID
	if u := view.CurrentUser(c); u != nil {
		actor = &u.ID
	}
	cp, err := h.outbox.Resend(c.Request().Context(), nil, id, actor)
	if err != nil {
		return err
	}
	msg := "A new copy of the message was queued for delivery."
	if !h.smtpConfigured {
		msg = "A new copy was stored, but no SMTP server is configured, so it will be held here too."
	}
	h.views.Flash(c, "success", msg)
	return c.Redirect(http.StatusSeeOther, "/admin/outbox/"+cp.ID.String())
}
