package accounts

import (
	"errors"
	"net/http"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// pagePrefix is the path of the merchant pages; a link is pagePrefix + id.
const pagePrefix = "/app/"

// errFormInvalid rolls back a form post whose values were refused; the
// handler then renders the form again with the messages.
var errFormInvalid = errors.New("form invalid")

// editable reports whether the merchant may change values: while filling
// in, and while the back office asks them to confirm or correct a detail.
func editable(a *appRecord) bool {
	return a.Status == StatusInProgress ||
		(a.Status == StatusProcessingPending && a.Pending != nil && a.Pending.Kind == "detail")
}

// openLink reads the application behind a link; the first visit moves it
// from requested to inProgress. ok is false for an unknown link or one not
// yet issued.
func (s *Server) openLink(id string) (*appRecord, bool, error) {
	var a *appRecord
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		a, err = loadApp(tx, id)
		return err
	})
	if errors.Is(err, ErrNotFound) || (err == nil && !a.Linked) {
		return nil, false, nil
	}
	if err != nil || a.Status != StatusRequested {
		return a, err == nil, err
	}
	err = s.update(func(c *change) error {
		if a, err = loadApp(c.tx, id); err != nil {
			return err
		}
		if a.Status != StatusRequested {
			return nil
		}
		if err := s.setStatus(c, a, StatusInProgress, "merchant"); err != nil {
			return err
		}
		return saveApp(c.tx, a)
	})
	return a, err == nil, err
}

// merchantPage opens the application of a page; it answers the request
// itself (404, 500, or a redirect to the confirmation page when the
// merchant can no longer change anything) and returns nil then.
func (s *Server) merchantPage(w http.ResponseWriter, r *http.Request) *appRecord {
	id := r.PathValue("applicationId")
	a, ok, err := s.openLink(id)
	switch {
	case err != nil:
		s.serverError(w, err)
	case !ok:
		s.linkNotFound(w)
	case !editable(a):
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
	default:
		return a
	}
	return nil
}

// handleDetailsPage is where the application link lands: the application
// section by section, each with a link to change it, and inputs for the
// required details still missing.
func (s *Server) handleDetailsPage(w http.ResponseWriter, r *http.Request) {
	a := s.merchantPage(w, r)
	if a == nil {
		return
	}
	view := s.detailsView(a, a.values(), nil, nil)
	view.Notice = noticeOf(r, a)
	s.pages.Render(w, http.StatusOK, "details", "Review your application", view)
}

// noticeOf is the confirmation a page shows after a redirect.
func noticeOf(r *http.Request, a *appRecord) string {
	switch {
	case r.URL.Query().Get("saved") != "":
		return "Your changes are saved."
	case r.URL.Query().Get("linked") != "":
		for i := len(a.Changes) - 1; i >= 0; i-- {
			if bank, ok := strings.CutPrefix(a.Changes[i].By, "bank link ("); ok {
				return "Your account at " + strings.TrimSuffix(bank, ")") + " is linked: its account and routing numbers are filled in."
			}
		}
		return "Your bank account is linked."
	}
	return ""
}

// detailsView builds the details page.
func (s *Server) detailsView(a *appRecord, data map[string]any, typed, errs map[string]string) detailsView {
	missing := s.missing(data)
	v := detailsView{
		pageBase: pageBase{ID: a.ID, Name: nameOf(data, a.ID), Pending: a.Pending, Errors: errorSummary(missing, errs)},
		Action:   pagePrefix + a.ID, Sections: s.summary(a, data),
		Fields:        formFields(missing, data, typed, errs, true),
		ContinueLabel: "Continue to the terms",
	}
	if a.Status == StatusProcessingPending {
		v.ContinueLabel = "Send the confirmed details"
	}
	for _, f := range missing {
		if f.Section == "banking" {
			v.BankLinkURL = pagePrefix + a.ID + "/bank-link?return=details"
			break
		}
	}
	return v
}

// handleDetailsSubmit takes the missing details, checks each one as the
// API would, and either shows the page again with a message beside every
// wrong field and in the error summary (422, values kept), or saves them
// and moves on: to the terms, or, answering a request for more
// information, back to the back office.
func (s *Server) handleDetailsSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	if !readForm(w, r) {
		return
	}
	var view detailsView
	var next string
	err := s.update(func(c *change) error {
		a, err := loadApp(c.tx, id)
		if err != nil {
			return err
		}
		if !a.Linked || !editable(a) {
			next = "/done"
			return nil
		}
		data := a.values()
		fields := s.missing(data)
		merged, typed, errs := s.applyForm(c.now, fields, data, r.PostForm, false)
		if len(errs) == 0 {
			errs = wholeErrors(merged, fields)
		}
		if len(errs) > 0 {
			view = s.detailsView(a, data, typed, errs)
			return errFormInvalid
		}
		s.recordChanges(c, a, fields, data, merged, "merchant")
		a.setValues(merged)
		next = "/terms"
		if a.Status == StatusProcessingPending {
			next = "/done"
			if err := s.resume(c, a, "merchant"); err != nil {
				return err
			}
		}
		return saveApp(c.tx, a)
	})
	switch {
	case errors.Is(err, errFormInvalid):
		s.pages.Render(w, http.StatusUnprocessableEntity, "details", "Review your application", view)
	case errors.Is(err, ErrNotFound):
		s.linkNotFound(w)
	case err != nil:
		s.serverError(w, err)
	default:
		http.Redirect(w, r, pagePrefix+id+next, http.StatusSeeOther)
	}
}

// handleTermsPage shows the terms once every required detail is there.
func (s *Server) handleTermsPage(w http.ResponseWriter, r *http.Request) {
	a := s.termsStep(w, r)
	if a == nil {
		return
	}
	s.pages.Render(w, http.StatusOK, "terms", "Terms and conditions", s.termsView(a, ""))
}

// handleTermsSubmit accepts the terms and submits the application, which
// moves it to processing; the back office decides it after the
// underwriting delay.
func (s *Server) handleTermsSubmit(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	a := s.termsStep(w, r)
	if a == nil {
		return
	}
	if r.PostForm.Get("accept") != "yes" {
		view := s.termsView(a, "Tick the box to accept the terms and conditions before you submit.")
		s.pages.Render(w, http.StatusUnprocessableEntity, "terms", "Terms and conditions", view)
		return
	}
	err := s.update(func(c *change) error {
		a, err := loadApp(c.tx, a.ID)
		if err != nil || a.Status != StatusInProgress || len(s.missing(a.values())) > 0 {
			return err // a second tab got there first: the redirect shows where things stand
		}
		if err := s.setStatus(c, a, StatusProcessing, "merchant"); err != nil {
			return err
		}
		if err := s.scheduleDecision(c, a, false); err != nil {
			return err
		}
		return saveApp(c.tx, a)
	})
	if err != nil {
		s.serverError(w, err)
		return
	}
	http.Redirect(w, r, pagePrefix+a.ID+"/done", http.StatusSeeOther)
}

// termsStep answers for the terms routes when the merchant is not at that
// step: unknown link, already submitted, or details missing.
func (s *Server) termsStep(w http.ResponseWriter, r *http.Request) *appRecord {
	a := s.merchantPage(w, r)
	switch {
	case a == nil:
	case a.Status != StatusInProgress:
		http.Redirect(w, r, pagePrefix+a.ID+"/done", http.StatusSeeOther)
	case len(s.missing(a.values())) > 0:
		http.Redirect(w, r, pagePrefix+a.ID, http.StatusSeeOther)
	default:
		return a
	}
	return nil
}

func (s *Server) termsView(a *appRecord, errMsg string) termsView {
	v := termsView{pageBase: pageBase{ID: a.ID, Name: a.name()}, PricingCode: a.PricingCode,
		Action: pagePrefix + a.ID + "/terms", Error: errMsg}
	if errMsg != "" {
		v.Errors = []errorLink{{Href: "#accept", Text: errMsg}}
	}
	return v
}

// doneView is the data of the confirmation page.
type doneView struct {
	pageBase
	Heading, Message, StatusLabel, EditURL string
	Status                                 Status
}

// handleDonePage confirms the submission and shows the current state and,
// when the back office needs more information, what it asks for.
func (s *Server) handleDonePage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	a, ok, err := s.openLink(id)
	switch {
	case err != nil:
		s.serverError(w, err)
		return
	case !ok:
		s.linkNotFound(w)
		return
	case a.Status == StatusInProgress:
		http.Redirect(w, r, pagePrefix+id, http.StatusSeeOther)
		return
	}
	heading, message := statusWords(a.Status)
	v := doneView{pageBase: pageBase{ID: id, Name: a.name(), Pending: a.Pending}, Heading: heading, Message: message,
		Status: a.Status, StatusLabel: a.Status.Label()}
	if editable(a) {
		v.EditURL = pagePrefix + id
	}
	s.pages.Render(w, http.StatusOK, "done", heading, v)
}

func (s *Server) linkNotFound(w http.ResponseWriter) {
	s.pages.Notice(w, http.StatusNotFound, "Link not found",
		"This application link does not exist or has not been issued yet. Ask your provider for a new link.")
}

// serverError answers a failure of the store, logged once here.
func (s *Server) serverError(w http.ResponseWriter, err error) {
	s.log.Error("sandbox page failed", "err", err)
	s.pages.Notice(w, http.StatusInternalServerError, "Something went wrong",
		"The application could not be read or saved. Try again in a moment.")
}

// statusWords is what the confirmation page says for each state.
func statusWords(st Status) (string, string) {
	switch st {
	case StatusProcessing:
		return "Application submitted", "Thank you. Your application has been submitted and is being reviewed. We will tell your provider when it is decided."
	case StatusProcessingPending:
		return "More information needed", "We are reviewing your application and need something more before we can decide it."
	case StatusDeclined:
		return "Application declined", "Your application was declined. Your provider can tell you more."
	case StatusWithdrawn:
		return "Application withdrawn", "This application was withdrawn."
	case StatusBoarded, StatusInstalled, StatusActive:
		return "Account open", "Your merchant account is open."
	}
	return "Application", "This application is not ready for you yet."
}

// readForm parses a merchant page's form, capped at kit.MaxBody, answering
// 400 itself when it cannot.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, kit.MaxBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "could not read the form", http.StatusBadRequest)
		return false
	}
	return true
}
