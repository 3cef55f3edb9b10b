package accounts

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The simulated bank-link dialog: the specification says the application
// pages of the sandbox offer a bank-linking flow with the bank-data
// provider's test credentials. The merchant picks a test institution, signs
// in with user_good / pass_good, picks an account, and the deposit account
// and routing number are filled in. Special passwords produce the
// provider's usual failures.

// institution is a test bank of the dialog.
type institution struct {
	ID, Name string
	Accounts []bankAccount
}

// bankAccount is an account the test credentials reach.
type bankAccount struct {
	ID, Name, Type, Number, Routing string
}

// testRouting is the routing number of every test institution: the
// generic test routing number the specification provides.
const testRouting = "011401533"

var institutions = []institution{
	{ID: "ins_109508", Name: "First Platypus Bank", Accounts: []bankAccount{
		{ID: "chk", Name: "Platypus Business Checking", Type: "Checking", Number: "1111222233330000", Routing: testRouting},
		{ID: "sav", Name: "Platypus Business Savings", Type: "Savings", Number: "1111222233331111", Routing: testRouting},
	}},
	{ID: "ins_109509", Name: "First Gingham Credit Union", Accounts: []bankAccount{
		{ID: "chk", Name: "Gingham Share Draft", Type: "Checking", Number: "2222333344440000", Routing: testRouting},
	}},
	{ID: "ins_109510", Name: "Tattersall Federal Credit Union", Accounts: []bankAccount{
		{ID: "chk", Name: "Tattersall Checking", Type: "Checking", Number: "3333444455550000", Routing: testRouting},
	}},
	{ID: "ins_109511", Name: "Tartan Bank", Accounts: []bankAccount{
		{ID: "chk", Name: "Tartan Everyday Checking", Type: "Checking", Number: "4444555566660000", Routing: testRouting},
		{ID: "sav", Name: "Tartan Savings", Type: "Savings", Number: "4444555566661111", Routing: testRouting},
	}},
}

func findInstitution(id string) (institution, bool) {
	for _, in := range institutions {
		if in.ID == id {
			return in, true
		}
	}
	return institution{}, false
}

// Test credentials and the failures they produce, as the provider words
// them.
const (
	testUser     = "user_good"
	testPassword = "pass_good"
)

// loginFailure is the provider's error for a sign-in: its code and the
// message the dialog shows.
func loginFailure(in institution, user, password string) (string, string) {
	switch {
	case user == "" || password == "":
		return "MISSING_FIELDS", "Enter your username and password."
	case user == testUser && password == "error_ITEM_LOCKED":
		return "ITEM_LOCKED", "Your account is locked after too many attempts to sign in. Unlock it on " + in.Name + "'s website, then try again."
	case user == testUser && password == "error_INSTITUTION_DOWN":
		return "INSTITUTION_DOWN", in.Name + " is not available right now. Try again later, or enter your account details by hand."
	case user == testUser && password == "error_INSTITUTION_NOT_RESPONDING":
		return "INSTITUTION_NOT_RESPONDING", in.Name + " is taking too long to respond. Try again later, or enter your account details by hand."
	case user != testUser || password != testPassword:
		return "INVALID_CREDENTIALS", "The username or password you entered is not correct. Check them and try again."
	}
	return "", ""
}

// bankLinkView is the data of the dialog's steps.
type bankLinkView struct {
	pageBase
	Step         string // institution, login, accounts
	Return       string
	Institutions []institution
	Institution  institution
	Action       string
	User         string
	ErrorCode    string
	Error        string
	Session      string
	CancelURL    string
}

// returnTarget is where the dialog goes back to: the details page or the
// bank account's edit page.
func returnTarget(id, ret string) string {
	if ret == "edit" {
		return pagePrefix + id + "/edit/banking"
	}
	return pagePrefix + id
}

func cleanReturn(ret string) string {
	if ret == "edit" {
		return "edit"
	}
	return "details"
}

// handleBankLinkStart shows the test institutions.
func (s *Server) handleBankLinkStart(w http.ResponseWriter, r *http.Request) {
	a := s.merchantPage(w, r)
	if a == nil {
		return
	}
	ret := cleanReturn(r.URL.Query().Get("return"))
	s.pages.Render(w, http.StatusOK, "banklink", "Link your bank", bankLinkView{
		pageBase: pageBase{ID: a.ID, Name: a.name()}, Step: "institution", Return: ret,
		Institutions: institutions, Action: pagePrefix + a.ID + "/bank-link", CancelURL: returnTarget(a.ID, ret),
	})
}

// handleBankLinkChoose takes the chosen institution and asks for the
// credentials.
func (s *Server) handleBankLinkChoose(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	a := s.merchantPage(w, r)
	if a == nil {
		return
	}
	ret := cleanReturn(r.PostForm.Get("return"))
	in, ok := findInstitution(r.PostForm.Get("institution"))
	if !ok {
		s.pages.Render(w, http.StatusUnprocessableEntity, "banklink", "Link your bank", bankLinkView{
			pageBase: pageBase{ID: a.ID, Name: a.name(), Errors: []errorLink{{Href: "#institution-" + institutions[0].ID, Text: "Choose your bank."}}},
			Step:     "institution", Return: ret, Institutions: institutions, Action: pagePrefix + a.ID + "/bank-link",
			CancelURL: returnTarget(a.ID, ret), Error: "Choose your bank.",
		})
		return
	}
	s.pages.Render(w, http.StatusOK, "banklink", "Sign in to "+in.Name, s.loginView(a, in, ret, "", "", ""))
}

func (s *Server) loginView(a *appRecord, in institution, ret, user, code, msg string) bankLinkView {
	v := bankLinkView{pageBase: pageBase{ID: a.ID, Name: a.name()}, Step: "login", Return: ret, Institution: in,
		Action: pagePrefix + a.ID + "/bank-link/" + in.ID, User: user, ErrorCode: code, Error: msg,
		CancelURL: returnTarget(a.ID, ret)}
	if msg != "" {
		v.Errors = []errorLink{{Href: "#bank-username", Text: msg}}
	}
	return v
}

// handleBankLinkLogin checks the test credentials and lists the accounts.
func (s *Server) handleBankLinkLogin(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	a := s.merchantPage(w, r)
	if a == nil {
		return
	}
	ret := cleanReturn(r.PostForm.Get("return"))
	in, ok := findInstitution(r.PathValue("institution"))
	if !ok {
		s.pages.Notice(w, http.StatusNotFound, "Bank not found", "This bank is not offered. Go back and choose another.")
		return
	}
	user := strings.TrimSpace(r.PostForm.Get("username"))
	if code, msg := loginFailure(in, user, r.PostForm.Get("password")); code != "" {
		s.pages.Render(w, http.StatusUnprocessableEntity, "banklink", "Sign in to "+in.Name, s.loginView(a, in, ret, user, code, msg))
		return
	}
	s.pages.Render(w, http.StatusOK, "banklink", "Choose an account", bankLinkView{
		pageBase: pageBase{ID: a.ID, Name: a.name()}, Step: "accounts", Return: ret, Institution: in,
		Action:  pagePrefix + a.ID + "/bank-link/" + in.ID + "/account",
		Session: s.linkSession(a.ID, in.ID, s.env.Clock.Now().Add(10*time.Minute)), CancelURL: returnTarget(a.ID, ret),
	})
}

// linkSession vouches that the merchant signed in to the institution, for
// ten minutes by the sandbox clock, so the account step cannot be reached
// without the credentials.
func (s *Server) linkSession(appID, insID string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	m := hmac.New(sha256.New, s.opts.SigningKey)
	m.Write([]byte("banklink\n" + appID + "\n" + insID + "\n" + e))
	return e + "." + hex.EncodeToString(m.Sum(nil))
}

func (s *Server) validLinkSession(appID, insID, session string) bool {
	e, _, ok := strings.Cut(session, ".")
	secs, err := strconv.ParseInt(e, 10, 64)
	if !ok || err != nil || !s.env.Clock.Now().Before(time.Unix(secs, 0)) {
		return false
	}
	return hmac.Equal([]byte(session), []byte(s.linkSession(appID, insID, time.Unix(secs, 0))))
}

// handleBankLinkAccount fills the deposit account and routing number from
// the chosen account and goes back to the page the dialog came from.
func (s *Server) handleBankLinkAccount(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	id := r.PathValue("applicationId")
	ret := cleanReturn(r.PostForm.Get("return"))
	in, ok := findInstitution(r.PathValue("institution"))
	if !ok || !s.validLinkSession(id, in.ID, r.PostForm.Get("session")) {
		s.pages.Notice(w, http.StatusForbidden, "Bank link expired",
			"The bank sign-in has expired. Start linking your bank again.")
		return
	}
	var acct bankAccount
	for _, ba := range in.Accounts {
		if ba.ID == r.PostForm.Get("account") {
			acct = ba
		}
	}
	if acct.ID == "" {
		a := s.merchantPage(w, r)
		if a == nil {
			return
		}
		s.pages.Render(w, http.StatusUnprocessableEntity, "banklink", "Choose an account", bankLinkView{
			pageBase: pageBase{ID: a.ID, Name: a.name(), Errors: []errorLink{{Href: "#account-" + in.Accounts[0].ID, Text: "Choose an account."}}},
			Step:     "accounts", Return: ret, Institution: in, Action: pagePrefix + a.ID + "/bank-link/" + in.ID + "/account",
			Session: r.PostForm.Get("session"), CancelURL: returnTarget(a.ID, ret), Error: "Choose an account.",
		})
		return
	}
	done := false
	err := s.update(func(c *change) error {
		a, err := loadApp(c.tx, id)
		if err != nil {
			return err
		}
		if !a.Linked || !editable(a) {
			done = true
			return nil
		}
		before := a.values()
		after := cloneJSON(before)
		setPath(after, "banking.depositAccount", acct.Number)
		setPath(after, "banking.depositRouting", acct.Routing)
		setPath(after, "banking.accountType", acct.Type)
		s.recordChanges(c, a, s.sectionFields(section{Key: "banking"}), before, after, "bank link ("+in.Name+")")
		a.setValues(after)
		return saveApp(c.tx, a)
	})
	switch {
	case errors.Is(err, ErrNotFound):
		s.linkNotFound(w)
	case err != nil:
		s.serverError(w, err)
	case done:
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
	default:
		http.Redirect(w, r, returnTarget(id, ret)+"?linked=1", http.StatusSeeOther)
	}
}
