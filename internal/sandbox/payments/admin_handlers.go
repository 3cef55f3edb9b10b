package payments

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// adminPage is the data of the admin page.
type adminPage struct {
	Now          time.Time
	CutOff       string
	NextCutOff   time.Time
	VoidWindow   time.Duration
	AuthLapse    time.Duration
	OID          string
	Accounts     []Account
	Transactions []TransactionView
	Batches      []Batch
	TestCards    []TestCard
	ReturnCodes  []string
	BasePath     string
}

// pageFuncs are the admin template's helpers.
var pageFuncs = template.FuncMap{
	"money": money,
	"utc":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"dur": func(d time.Duration) string {
		if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
			return strconv.Itoa(int(d/(24*time.Hour))) + " days"
		}
		if d%time.Minute == 0 {
			return strconv.Itoa(int(d/time.Minute)) + " minutes"
		}
		return d.String()
	},
	"last4": func(s string) int { return max(len(s)-4, 0) },
	"short": func(id string) string {
		if len(id) > 12 {
			return id[:12] + "…"
		}
		return id
	},
}

// handleAdminPage lists accounts, transactions and batches, with the
// settle, create and ACH-return controls.
func (a *Area) handleAdminPage(w http.ResponseWriter, r *http.Request) {
	oid := r.URL.Query().Get("oid")
	accts, err1 := a.Accounts()
	txns, err2 := a.Transactions(oid, 200)
	batches, err3 := a.Batches(oid)
	if err := firstErr(err1, err2, err3); err != nil {
		a.pages.Notice(w, http.StatusInternalServerError, "Payments unavailable", err.Error())
		return
	}
	now := a.env.Clock.Now()
	a.pages.Render(w, http.StatusOK, "admin", "Direct payment API", adminPage{
		Now: now, CutOff: time.Time{}.Add(a.opts.CutOff).Format("15:04") + " " + a.opts.CutOffZone.String(),
		NextCutOff: a.nextCutOffAfter(now), VoidWindow: VoidWindow, AuthLapse: a.opts.AuthLapse, OID: oid,
		Accounts: accts, Transactions: txns, Batches: batches, TestCards: TestCards,
		ReturnCodes: []string{"R01", "R02", "R03", "R10", "R29"}, BasePath: a.opts.BasePath,
	})
}

// handleAdminCreateForm opens an account from the admin page.
func (a *Area) handleAdminCreateForm(w http.ResponseWriter, r *http.Request) {
	if _, err := a.createAccount(kit.Merchant{Name: r.FormValue("name")}); err != nil {
		a.pages.Notice(w, http.StatusInternalServerError, "Account not opened", err.Error())
		return
	}
	http.Redirect(w, r, "/_sandbox/admin/payments", http.StatusSeeOther)
}

// handleAdminSettleForm settles now from the admin page.
func (a *Area) handleAdminSettleForm(w http.ResponseWriter, r *http.Request) {
	if _, err := a.SettleNow(r.FormValue("oid")); err != nil {
		a.pages.Notice(w, http.StatusBadRequest, "Not settled", err.Error())
		return
	}
	http.Redirect(w, r, "/_sandbox/admin/payments", http.StatusSeeOther)
}

// handleAdminReturnForm returns an ACH sale from the admin page.
func (a *Area) handleAdminReturnForm(w http.ResponseWriter, r *http.Request) {
	if _, err := a.ReturnACH(r.PathValue("id"), r.FormValue("code")); err != nil {
		a.pages.Notice(w, adminStatus(err), "Not returned", err.Error())
		return
	}
	http.Redirect(w, r, "/_sandbox/admin/payments", http.StatusSeeOther)
}

// handleAdminAccountsJSON lists the accounts with their credentials.
func (a *Area) handleAdminAccountsJSON(w http.ResponseWriter, r *http.Request) {
	accts, err := a.Accounts()
	if err != nil {
		writeError(w, err)
		return
	}
	if accts == nil {
		accts = []Account{}
	}
	kit.WriteJSON(w, http.StatusOK, accts)
}

// handleAdminAccountJSON returns one account.
func (a *Area) handleAdminAccountJSON(w http.ResponseWriter, r *http.Request) {
	acct, err := a.account(r.PathValue("oid"))
	if err != nil {
		writeError(w, kit.NewError(http.StatusNotFound, "no such account"))
		return
	}
	kit.WriteJSON(w, http.StatusOK, acct)
}

// handleAdminCreateJSON opens an account: {"name": "...",
// "applicationId": "..."}; with an applicationId already provisioned it
// returns that account (200) instead of a new one (201).
func (a *Area) handleAdminCreateJSON(w http.ResponseWriter, r *http.Request) {
	var m kit.Merchant
	if err := (kit.Body{Strict: true}).Read(w, r, &m); err != nil {
		writeError(w, err)
		return
	}
	before, _ := a.Accounts()
	acct, err := a.createAccount(m)
	if err != nil {
		writeError(w, err)
		return
	}
	status := http.StatusCreated
	for _, b := range before {
		if b.OID == acct.OID {
			status = http.StatusOK
		}
	}
	kit.WriteJSON(w, status, acct)
}

// handleAdminTransactionsJSON lists transactions: ?oid= and ?limit=.
func (a *Area) handleAdminTransactionsJSON(w http.ResponseWriter, r *http.Request) {
	txns, err := a.Transactions(r.URL.Query().Get("oid"), 0)
	if err != nil {
		writeError(w, err)
		return
	}
	if txns == nil {
		txns = []TransactionView{}
	}
	kit.WriteJSON(w, http.StatusOK, txns)
}

// handleAdminBatchesJSON lists batches: ?oid=.
func (a *Area) handleAdminBatchesJSON(w http.ResponseWriter, r *http.Request) {
	b, err := a.Batches(r.URL.Query().Get("oid"))
	if err != nil {
		writeError(w, err)
		return
	}
	if b == nil {
		b = []Batch{}
	}
	kit.WriteJSON(w, http.StatusOK, b)
}

// handleAdminSettleJSON settles now: {"oid": "..."} or {} for every
// account. It answers the batches closed.
func (a *Area) handleAdminSettleJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		OID string `json:"oid"`
	}
	if err := (kit.Body{Strict: true, MayBeEmpty: true}).Read(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	closed, err := a.SettleNow(body.OID)
	if err != nil {
		writeError(w, kit.NewError(http.StatusNotFound, "no such account"))
		return
	}
	if closed == nil {
		closed = []Batch{}
	}
	kit.WriteJSON(w, http.StatusOK, closed)
}

// handleAdminReturnJSON returns an ACH sale: {"code": "R01"}.
func (a *Area) handleAdminReturnJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Code string `json:"code"`
	}
	if err := (kit.Body{Strict: true, MayBeEmpty: true}).Read(w, r, &body); err != nil {
		writeError(w, err)
		return
	}
	v, err := a.ReturnACH(r.PathValue("id"), strings.ToUpper(body.Code))
	if err != nil {
		writeError(w, kit.NewError(adminStatus(err), "%s", err.Error()))
		return
	}
	kit.WriteJSON(w, http.StatusOK, v)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
