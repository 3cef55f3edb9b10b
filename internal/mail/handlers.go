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
	// Link is the message's secret link, revealed (and audited) for a held message only;
	// the bodies show it in its place, or HiddenLink.
	Link string
	// HasLink says the message carries a secret link, revealed or not.
	HasLink bool
}

// Show renders one message: its headers, its plain-text part, its secret link — clickable
// and with a copy button, for a held message only, and recorded in the audit trail — and
// its HTML part rendered in a sandboxed frame (see HTML).
func (h *Handlers) Show(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return apperr.New(apperr.KindNotFound, "No such message.")
	}
	m, err := h.outbox.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	page := showPage{Message: m, SMTPConfigured: h.smtpConfigured, HasLink: m.HasSecretLink()}
	if u := view.CurrentUser(c); u != nil {
		if page.Link, err = h.outbox.RevealLink(c.Request().Context(), u.ID, m); err != nil {
			return err
		}
	}
	shown := page.Link
	if shown == "" {
		shown = HiddenLink
	}
	m.Content = m.WithLink(shown)
	return h.views.Page(c, http.StatusOK, "outbox/show", m.Subject, page)
}

// htmlPartCSP lets the HTML part render as an e-mail client would show it, and nothing
// more: no script, no request anywhere, a sandbox without scripts or same origin, framed
// only by the outbox page.
const htmlPartCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox allow-popups allow-popups-to-escape-sandbox; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// HTML serves a message's HTML part for the sandboxed frame of its page, with the secret
// link hidden (the page shows it, audited, when it may).
func (h *Handlers) HTML(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return apperr.New(apperr.KindNotFound, "No such message.")
	}
	m, err := h.outbox.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Security-Policy", htmlPartCSP)
	hdr.Set("X-Frame-Options", "SAMEORIGIN")
	hdr.Set("Cache-Control", "private, no-store")
	return c.HTML(http.StatusOK, m.Content.WithLink(HiddenLink).HTML)
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
