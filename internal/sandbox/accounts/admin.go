package accounts

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// adminPath is the area's admin page; adminAPI the prefix of its JSON.
const (
	adminPath = "/_sandbox/admin/" + Area
	adminAPI  = "/_sandbox/admin/api/" + Area
)

// adminPageSize is how many applications the admin page lists at once.
const adminPageSize = 50

// adminRow is one application on the admin page.
type adminRow struct {
	Application
	StatusLabel string
	Moves       []adminMove
}

// adminMove is one button of the admin page.
type adminMove struct {
	Status Status
	Label  string
}

// adminView is the data of the admin page.
type adminView struct {
	Notice       string
	Error        string
	Rows         []adminRow
	Next         string // URL of the next (older) page
	Total        int
	Codes        []PricingCode
	Settings     areaSettings
	Underwriting string
	Now          time.Time
}

// movesOf lists the buttons for an application in state st.
func movesOf(st Status) []adminMove {
	var out []adminMove
	for _, m := range adminMoves[st] {
		out = append(out, adminMove{Status: m, Label: moveLabel(m)})
	}
	return out
}

// moveLabel is the words of a move's button.
func moveLabel(st Status) string {
	switch st {
	case StatusProcessingPending:
		return "Ask for more information"
	case StatusProcessing:
		return "Resume review"
	case StatusBoarded:
		return "Board"
	case StatusDeclined:
		return "Decline"
	case StatusWithdrawn:
		return "Withdraw"
	case StatusInstalled:
		return "Mark installed"
	case StatusActive:
		return "Mark active"
	}
	return string(st)
}

// handleAdminPage lists the applications, newest first, with the moves
// valid from each one's state; the issued pricing codes with a form to
// issue more; and the area's answer settings.
func (s *Server) handleAdminPage(w http.ResponseWriter, r *http.Request) {
	before, _ := strconv.ParseUint(r.URL.Query().Get("before"), 10, 64)
	apps, next := s.applicationPage(before, adminPageSize)
	v := adminView{Total: s.StartedCount(), Codes: s.PricingCodes(), Settings: s.settings(), Now: s.env.Clock.Now(),
		Notice: r.URL.Query().Get("notice"), Error: r.URL.Query().Get("error"), Underwriting: s.underwritingText()}
	for _, a := range apps {
		v.Rows = append(v.Rows, adminRow{Application: a, StatusLabel: a.Status.Label(), Moves: movesOf(a.Status)})
	}
	if next != 0 {
		v.Next = adminPath + "?before=" + strconv.FormatUint(next, 10)
	}
	s.admin.Render(w, http.StatusOK, "admin", "Applications", v)
}

func (s *Server) underwritingText() string {
	if s.opts.UnderwritingDelay < 0 {
		return "Automatic underwriting is off: move applications by hand."
	}
	return "Accepted applications are decided automatically " + s.opts.UnderwritingDelay.String() +
		" after acceptance (sandbox clock), by the test data in the README."
}

// adminAppView is the data of one application's admin page.
type adminAppView struct {
	Application
	Notice, Error string
	StatusLabel   string
	Moves         []adminMove
	Sections      []summarySection
}

// handleAdminAppPage shows one application: its state and the moves valid
// from it, what the back office asks for, the planned decision, the state
// history, the merchant's changes, its files and its details.
func (s *Server) handleAdminAppPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	var a *appRecord
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		a, err = loadApp(tx, id)
		return err
	})
	if err != nil {
		s.admin.Notice(w, http.StatusNotFound, "Application not found", "There is no application "+id+".")
		return
	}
	data := a.values()
	snap := a.snapshot(s.publicURL(), false)
	sections := s.summary(a, data)
	for i := range sections {
		sections[i].EditURL = ""
	}
	s.admin.Render(w, http.StatusOK, "admin_app", snap.Name, adminAppView{
		Application: snap, Notice: r.URL.Query().Get("notice"), Error: r.URL.Query().Get("error"),
		StatusLabel: a.Status.Label(), Moves: movesOf(a.Status), Sections: sections,
	})
}

// handleAdminStatusForm moves an application from the admin pages and
// comes back with a notice saying what happened.
func (s *Server) handleAdminStatusForm(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	back := adminPath
	if r.FormValue("back") == "application" {
		back = adminPath + "/applications/" + url.PathEscape(id)
	}
	st := Status(r.FormValue("status"))
	err := s.SetStatusWithMessage(id, st, r.FormValue("message"))
	q := url.Values{}
	switch {
	case errors.Is(err, ErrNotFound):
		s.admin.Notice(w, http.StatusNotFound, "Application not found", "There is no application "+id+".")
		return
	case err != nil:
		q.Set("error", "Not moved: "+errorText(err))
	default:
		a, _ := s.Application(id)
		q.Set("notice", a.Name+" moved to "+st.Label()+" ("+string(st)+").")
	}
	http.Redirect(w, r, back+"?"+q.Encode(), http.StatusSeeOther)
}

// errorText is an error's message without the package prefix.
func errorText(err error) string {
	msg := err.Error()
	for _, p := range []string{ErrTransition.Error() + ": ", "sandbox: "} {
		if len(msg) > len(p) && msg[:len(p)] == p {
			msg = msg[len(p):]
		}
	}
	return msg
}

// handleAdminIssueForm issues a pricing code from the admin page.
func (s *Server) handleAdminIssueForm(w http.ResponseWriter, r *http.Request) {
	code := r.FormValue("code")
	_, created, err := s.IssuePricingCode(code, r.FormValue("description"), "admin")
	q := url.Values{}
	switch {
	case err != nil:
		q.Set("error", "Not issued: "+errorText(err))
	case created:
		q.Set("notice", "Pricing code "+code+" issued.")
	default:
		q.Set("notice", "Pricing code "+code+" was already issued; its description is updated.")
	}
	http.Redirect(w, r, adminPath+"?"+q.Encode()+"#pricing-codes", http.StatusSeeOther)
}

// handleAdminWithdrawForm withdraws a pricing code from the admin page.
func (s *Server) handleAdminWithdrawForm(w http.ResponseWriter, r *http.Request) {
	code := r.FormValue("code")
	q := url.Values{}
	if err := s.WithdrawPricingCode(code); err != nil {
		q.Set("error", "Not withdrawn: "+errorText(err))
	} else {
		q.Set("notice", "Pricing code "+code+" withdrawn: new applications with it are refused.")
	}
	http.Redirect(w, r, adminPath+"?"+q.Encode()+"#pricing-codes", http.StatusSeeOther)
}

// handleAdminSettingsForm saves the area's answer settings.
func (s *Server) handleAdminSettingsForm(w http.ResponseWriter, r *http.Request) {
	err := s.applySettings(areaSettings{URLLifetime: r.FormValue("urlLifetime"),
		OmitPresignedURL: r.FormValue("omitPresignedUrl") == "yes", ExpAtSeconds: r.FormValue("expAtSeconds") == "yes"})
	q := url.Values{}
	if err != nil {
		q.Set("error", "Settings not saved: "+err.Error())
	} else {
		q.Set("notice", "Settings saved.")
	}
	http.Redirect(w, r, adminPath+"?"+q.Encode()+"#settings", http.StatusSeeOther)
}

// handleAdminListJSON lists the applications, newest first, without their
// data: {"applications": [...], "next": "<before of the next page>"}.
func (s *Server) handleAdminListJSON(w http.ResponseWriter, r *http.Request) {
	before, _ := strconv.ParseUint(r.URL.Query().Get("before"), 10, 64)
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 || limit > 1000 {
		limit = 100
	}
	apps, next := s.applicationPage(before, limit)
	if apps == nil {
		apps = []Application{}
	}
	out := map[string]any{"applications": apps}
	if next != 0 {
		out["next"] = strconv.FormatUint(next, 10)
	}
	kit.WriteJSON(w, http.StatusOK, out)
}

// handleAdminGetJSON returns one application with its data.
func (s *Server) handleAdminGetJSON(w http.ResponseWriter, r *http.Request) {
	a, ok := s.Application(r.PathValue("applicationId"))
	if !ok {
		writeAPIError(w, kit.NewError(http.StatusNotFound, "application not found"))
		return
	}
	kit.WriteJSON(w, http.StatusOK, a)
}

// handleAdminStatusJSON moves an application:
// {"status": "processingPending", "message": "..."}.
func (s *Server) handleAdminStatusJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Status  Status `json:"status"`
		Message string `json:"message"`
	}
	if err := (kit.Body{Strict: true}).Read(w, r, &body); err != nil {
		writeAPIError(w, err)
		return
	}
	id := r.PathValue("applicationId")
	if err := s.SetStatusWithMessage(id, body.Status, body.Message); err != nil {
		writeAPIError(w, kit.NewError(adminErrorStatus(err), "%s", errorText(err)))
		return
	}
	a, _ := s.Application(id)
	kit.WriteJSON(w, http.StatusOK, a)
}

// adminErrorStatus maps a SetStatus error to a status code.
func adminErrorStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrTransition):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// handleCodesJSON lists the issued pricing codes.
func (s *Server) handleCodesJSON(w http.ResponseWriter, r *http.Request) {
	kit.WriteJSON(w, http.StatusOK, s.PricingCodes())
}

// handleWebhooksJSON lists the status webhooks still to be delivered, with
// their attempts and when the next is due, so a rehearsal can see why a
// receiver has not heard of a change yet.
func (s *Server) handleWebhooksJSON(w http.ResponseWriter, r *http.Request) {
	kit.WriteJSON(w, http.StatusOK, s.PendingWebhooks())
}

// handleIssueCodeJSON issues a code: {"code": "RETAIL-1", "description":
// "Retail flat rate"}; 201 when new, 200 when it was already issued. The
// portal calls it as pricing models are saved, in sandbox mode.
func (s *Server) handleIssueCodeJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	}
	if err := (kit.Body{Strict: true}).Read(w, r, &body); err != nil {
		writeAPIError(w, err)
		return
	}
	pc, created, err := s.IssuePricingCode(body.Code, body.Description, "admin")
	if err != nil {
		writeAPIError(w, &kit.APIError{Status: pricingCodeStatus(err), Field: "code", Message: "code: " + errorText(err)})
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	kit.WriteJSON(w, status, pc)
}

// handleWithdrawCodeJSON withdraws a code: 204, or 404 when not issued.
func (s *Server) handleWithdrawCodeJSON(w http.ResponseWriter, r *http.Request) {
	if err := s.WithdrawPricingCode(r.PathValue("code")); err != nil {
		writeAPIError(w, kit.NewError(pricingCodeStatus(err), "%s", errorText(err)))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleSettingsGetJSON returns the area's answer settings.
func (s *Server) handleSettingsGetJSON(w http.ResponseWriter, r *http.Request) {
	kit.WriteJSON(w, http.StatusOK, s.settings())
}

// handleSettingsPutJSON replaces the area's answer settings.
func (s *Server) handleSettingsPutJSON(w http.ResponseWriter, r *http.Request) {
	var as areaSettings
	if err := (kit.Body{Strict: true}).Read(w, r, &as); err != nil {
		writeAPIError(w, err)
		return
	}
	if err := s.applySettings(as); err != nil {
		writeAPIError(w, kit.NewError(http.StatusBadRequest, "%s", err.Error()))
		return
	}
	s.handleSettingsGetJSON(w, r)
}
