package partnerapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/submission"
)

// GetHandoff answers the hand-off: whether the merchant's link exists, the link itself
// (as the page shows it to the rep), when the merchant opened it, and the e-mails that
// carried it.
func (h *Handlers) GetHandoff(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v, err := h.d.Submissions.Progress(ctx, viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	if v == nil {
		rec, err := h.d.Workspace.Load(ctx, viewer(principalOf(c)), id)
		if err != nil {
			return err
		}
		return ok(c, http.StatusOK, handoffBody(rec.App, nil))
	}
	return ok(c, http.StatusOK, handoffBody(v.App, v))
}

// handoffBody is the hand-off of a: its state, link, opening and e-mails.
func handoffBody(a *models.Application, v *submission.View) map[string]any {
	state := "not_linked"
	switch {
	case a.OpenedAt != nil:
		state = "opened"
	case a.Locked():
		state = "linked"
	}
	emails := []any{}
	var link *string
	canResend := false
	if v != nil {
		for _, m := range v.Emails {
			emails = append(emails, emailBody(m))
		}
		if v.HandoffLink != "" {
			link = &v.HandoffLink
		}
		canResend = a.Locked() && v.CanResend()
	}
	return map[string]any{"applicationId": a.ID, "state": state, "link": link, "linkedAt": tsp(a.LinkedAt),
		"openedAt": tsp(a.OpenedAt), "canResend": canResend, "emails": emails}
}

// emailBody is one hand-off e-mail: where it stands, never its content.
func emailBody(m mail.Message) map[string]any {
	return map[string]any{"id": m.ID, "status": string(m.Status), "statusText": m.StatusText(),
		"createdAt": ts(m.CreatedAt), "sentAt": tsp(m.SentAt), "resent": m.ResentFrom != nil}
}

// ResendHandoff e-mails the merchant their link again, as the page's button does.
func (h *Handlers) ResendHandoff(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	actor, err := h.actorFor(ctx, principalOf(c), id)
	if err != nil {
		return err
	}
	msg, err := h.d.Resender.ResendHandoff(ctx, actor, id)
	if err != nil {
		return err
	}
	return ok(c, http.StatusAccepted, emailBody(*msg))
}
