package webhooks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the admins' pages of webhook endpoints (the routes are admin-only; the
// service checks again).
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the pages' handlers.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// EventGroup is the events of one object, as the form lists them.
type EventGroup struct {
	Title  string
	Events []EventInfo
}

// eventGroups groups the catalogue by object.
func eventGroups() []EventGroup {
	titles := map[ObjectKind]string{ObjectApplication: "Applications", ObjectMerchant: "Merchants",
		ObjectPayment: "Payments", ObjectTerminalTransaction: "Card terminals"}
	var groups []EventGroup
	for _, e := range Catalogue {
		if len(groups) == 0 || groups[len(groups)-1].Title != titles[e.Object] {
			groups = append(groups, EventGroup{Title: titles[e.Object]})
		}
		g := &groups[len(groups)-1]
		g.Events = append(g.Events, e)
	}
	return groups
}

type listPage struct {
	Endpoints []Endpoint
	Events    int
}

// List shows every endpoint.
func (h *Handlers) List(c echo.Context) error {
	list, err := h.svc.List(c.Request().Context())
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "webhooks/list", "Webhooks", listPage{Endpoints: list, Events: len(Catalogue)})
}

// formPage is the new endpoint's form.
type formPage struct {
	Keys   []apikeys.Key
	Groups []EventGroup
	Form   EndpointForm
	Errors apperr.FieldErrors
}

// Chosen reports whether the form has event t ticked.
func (p formPage) Chosen(t EventType) bool {
	for _, e := range p.Form.Events {
		if e == string(t) {
			return true
		}
	}
	return false
}

// New shows the form of a new endpoint, every event ticked.
func (h *Handlers) New(c echo.Context) error {
	form := EndpointForm{}
	for _, e := range Catalogue {
		form.Events = append(form.Events, string(e.Type))
	}
	return h.renderForm(c, http.StatusOK, form, nil)
}

func (h *Handlers) renderForm(c echo.Context, status int, form EndpointForm, errs apperr.FieldErrors) error {
	keys, err := h.svc.Keys(c.Request().Context())
	if err != nil {
		return err
	}
	if errs == nil {
		errs = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "webhooks/new", "New webhook endpoint",
		formPage{Keys: keys, Groups: eventGroups(), Form: form, Errors: errs})
}

// formOf reads an endpoint's form.
func formOf(c echo.Context) EndpointForm {
	values, _ := c.FormParams()
	return EndpointForm{URL: c.FormValue("url"), KeyID: c.FormValue("key_id"), Description: c.FormValue("description"),
		Events: values["events"]}
}

// Create registers an endpoint and shows its page with the secret, this once.
func (h *Handlers) Create(c echo.Context) error {
	form := formOf(c)
	e, secret, err := h.svc.Create(c.Request().Context(), view.CurrentUser(c), form)
	if fields, invalid := apperr.FieldsOf(err); invalid {
		return h.renderForm(c, http.StatusUnprocessableEntity, form, fields)
	}
	if err != nil {
		return err
	}
	return h.renderShow(c, http.StatusOK, showPage{Endpoint: e, Secret: secret, Created: true})
}

// showPage is an endpoint's page: its settings, a secret just drawn, its delivery log.
type showPage struct {
	Endpoint *Endpoint
	// Secret is shown once, right after it was drawn (Created: a new endpoint).
	Secret  string
	Created bool
	Groups  []EventGroup
	Form    EndpointForm
	Errors  apperr.FieldErrors
	Log     *DeliveryPage
	Status  string
	// Filters are the log's status filters ("" is all).
	Filters []string
	// PrevPage and NextPage are 0 when there is no such page.
	PrevPage, NextPage int
}

// Chosen reports whether the events form has t ticked.
func (p showPage) Chosen(t EventType) bool { return formPage{Form: p.Form}.Chosen(t) }

// Show renders an endpoint and a page of its delivery log (?status=, ?page=).
func (h *Handlers) Show(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	return h.renderShow(c, http.StatusOK, showPage{Endpoint: e})
}

func (h *Handlers) renderShow(c echo.Context, status int, p showPage) error {
	ctx := c.Request().Context()
	p.Status = c.QueryParam("status")
	page, _ := strconv.Atoi(c.QueryParam("page"))
	var err error
	if p.Log, err = h.svc.Deliveries(ctx, p.Endpoint.ID, p.Status, page); err != nil {
		return err
	}
	p.PrevPage = p.Log.Page - 1
	if p.Log.HasMore {
		p.NextPage = p.Log.Page + 1
	}
	p.Groups, p.Filters = eventGroups(), []string{"", StatusPending, StatusDelivered, StatusFailed}
	if p.Form.Events == nil {
		p.Form = EndpointForm{Description: p.Endpoint.Description, Events: eventStrings(p.Endpoint.Events)}
	}
	if p.Errors == nil {
		p.Errors = apperr.FieldErrors{}
	}
	if p.Secret != "" {
		// The secret is on this page only: never cached, never in a flash or the session.
		c.Response().Header().Set("Cache-Control", "no-store")
	}
	return h.views.Page(c, status, "webhooks/show", "Webhook endpoint", p)
}

// endpoint loads the endpoint of the path's :id (404 otherwise).
func (h *Handlers) endpoint(c echo.Context) (*Endpoint, error) {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return nil, err
	}
	return h.svc.Get(c.Request().Context(), id)
}

// Update changes the endpoint's events and description.
func (h *Handlers) Update(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	form := formOf(c)
	err = h.svc.Update(c.Request().Context(), view.CurrentUser(c), e.ID, form)
	if fields, invalid := apperr.FieldsOf(err); invalid {
		return h.renderShow(c, http.StatusUnprocessableEntity, showPage{Endpoint: e, Form: form, Errors: fields})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "The endpoint's events were saved; new events follow them from now on.")
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks/"+e.ID.String())
}

// Disable stops an endpoint's deliveries.
func (h *Handlers) Disable(c echo.Context) error { return h.setDisabled(c, true) }

// Enable starts an endpoint's deliveries again.
func (h *Handlers) Enable(c echo.Context) error { return h.setDisabled(c, false) }

func (h *Handlers) setDisabled(c echo.Context, disabled bool) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	if err := h.svc.SetDisabled(c.Request().Context(), view.CurrentUser(c), e.ID, disabled); err != nil {
		return err
	}
	msg := "The endpoint is enabled: new events are sent to it. Send failed deliveries again from its log."
	if disabled {
		msg = "The endpoint is disabled: nothing is sent to it until it is enabled."
	}
	h.views.Flash(c, "success", msg)
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks/"+e.ID.String())
}

// Rotate draws a new secret and shows it, this once.
func (h *Handlers) Rotate(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	secret, err := h.svc.Rotate(c.Request().Context(), view.CurrentUser(c), e.ID)
	if err != nil {
		return err
	}
	if e, err = h.svc.Get(c.Request().Context(), e.ID); err != nil {
		return err
	}
	return h.renderShow(c, http.StatusOK, showPage{Endpoint: e, Secret: secret})
}

// Delete removes the endpoint and its log.
func (h *Handlers) Delete(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	if err := h.svc.Delete(c.Request().Context(), view.CurrentUser(c), e.ID); err != nil {
		return err
	}
	h.views.Flash(c, "success", "The endpoint "+e.URL+" was deleted with its delivery log.")
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks")
}

type deliveryPage struct {
	Endpoint *Endpoint
	Delivery *Delivery
	Body     string
	Attempts []Attempt
}

// Delivery shows one delivery: the body it sends and every attempt.
func (h *Handlers) Delivery(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	id, err := httpx.UUIDParam(c, "delivery")
	if err != nil {
		return err
	}
	d, body, attempts, err := h.svc.Delivery(c.Request().Context(), e.ID, id)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(body), "", "  ") != nil {
		pretty.Reset()
		pretty.WriteString(body)
	}
	return h.views.Page(c, http.StatusOK, "webhooks/delivery", string(d.Type), deliveryPage{Endpoint: e, Delivery: d, Body: pretty.String(), Attempts: attempts})
}

// Resend sends a finished delivery again.
func (h *Handlers) Resend(c echo.Context) error {
	e, err := h.endpoint(c)
	if err != nil {
		return err
	}
	id, err := httpx.UUIDParam(c, "delivery")
	if err != nil {
		return err
	}
	if err := h.svc.Resend(c.Request().Context(), view.CurrentUser(c), e.ID, id); err != nil {
		return err
	}
	h.views.Flash(c, "success", "The delivery was queued again; its attempts show below.")
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks/"+e.ID.String()+"/deliveries/"+id.String())
}
