package payments_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Provision is idempotent per application: a repeat gives the same account
// and token; the admin JSON lists the credentials.
func TestProvisionAndAccountsJSON(t *testing.T) {
	e := newEnv(t, nil)
	m := kit.Merchant{ApplicationID: uuid.NewString(), ExternalApplicationID: uuid.NewString(), Name: "Harbor Books"}
	c1, err := e.area.Provision(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := e.area.Provision(context.Background(), m)
	if err != nil || c1 != c2 {
		t.Fatalf("repeat provision: %v %v %v", c1, c2, err)
	}
	if len(c1.OID) != 10 || strings.Count(c1.Token, ".") != 2 {
		t.Fatalf("credentials %+v", c1)
	}
	mustOK(t, e.call(t, http.MethodPut, "sale", c1, data(sale(visa, "1.00"))))
	list := e.admin(t, http.MethodGet, "accounts", nil)
	var accts []map[string]any
	if err := jsonArray(list.Raw, &accts); err != nil || len(accts) != 2 {
		t.Fatalf("accounts: %s", list.Raw)
	}
	found := false
	for _, a := range accts {
		if a["oid"] == c1.OID && a["token"] == c1.Token && a["applicationId"] == m.ApplicationID && a["name"] == "Harbor Books" {
			found = true
		}
	}
	if !found {
		t.Errorf("the provisioned account is not listed with its credentials: %s", list.Raw)
	}
	again := e.admin(t, http.MethodPost, "accounts", map[string]any{"applicationId": m.ApplicationID, "name": "x"})
	if again.Status != http.StatusOK || again.Body["oid"] != c1.OID {
		t.Errorf("create for a provisioned application: %d %s", again.Status, again.Raw)
	}
	one := e.admin(t, http.MethodGet, "accounts/"+c1.OID, nil)
	if one.Status != http.StatusOK || one.Body["token"] != c1.Token {
		t.Errorf("one account: %d %s", one.Status, one.Raw)
	}
	if _, err := e.area.Provision(context.Background(), kit.Merchant{}); err == nil {
		t.Error("provision without an application id succeeded")
	}
}

// The admin surface needs the admin token.
func TestAdminGuard(t *testing.T) {
	e := newEnv(t, nil)
	for _, path := range []string{"/_sandbox/admin/payments", "/_sandbox/admin/api/payments/accounts"} {
		resp, err := http.Get(e.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d", path, resp.StatusCode)
		}
	}
}

// adminPage fetches the admin page with basic auth, as a browser would.
func (e *env) adminPage(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.ts.URL+"/_sandbox/admin/payments", nil)
	req.SetBasicAuth("admin", adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("admin page: %d %s", resp.StatusCode, raw)
	}
	return string(raw)
}

// adminForm posts a form of the admin page.
func (e *env) adminForm(t *testing.T, path string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader(form.Encode()))
	req.SetBasicAuth("admin", adminToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.ts.URL)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The admin page lists accounts, transactions and batches, settles now,
// opens accounts and returns ACH sales; cross-site posts are refused.
func TestAdminPage(t *testing.T) {
	e := newEnv(t, nil)
	s := mustOK(t, e.put(t, "sale", data(sale(visa, "12.34"))))
	a := mustOK(t, e.put(t, "ach/sale", data(ach(bankAcct, "56.78"))))
	page := e.adminPage(t)
	for _, want := range []string{"Corner Bakery", e.acct.OID, e.acct.Token, "CreditSale", "12.34", "AchSale", "open since",
		"Settle now", "VS …1111", "4000000000000002"} {
		if !strings.Contains(page, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	if resp := e.adminForm(t, "/_sandbox/admin/payments/settle", url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("settle now: %d", resp.StatusCode)
	}
	wantError(t, e.put(t, "void", ref(s.field(t, "uniqueTransId"), nil)), http.StatusConflict, "settled")
	resp := e.adminForm(t, "/_sandbox/admin/payments/transactions/"+a.field(t, "uniqueTransId")+"/achReturn", url.Values{"code": {"R01"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("ACH return: %d", resp.StatusCode)
	}
	if back := e.get(t, a.field(t, "externalTransactionId")); back.field(t, "achReturnCode") != "R01" {
		t.Errorf("read-back after the admin's return: %s", back.Raw)
	}
	if resp := e.adminForm(t, "/_sandbox/admin/payments/accounts", url.Values{"name": {"Night Market"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("open account: %d", resp.StatusCode)
	}
	page = e.adminPage(t)
	for _, want := range []string{"Night Market", "settled", "returned R01"} {
		if !strings.Contains(page, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/_sandbox/admin/payments/settle", nil)
	req.SetBasicAuth("admin", adminToken)
	req.Header.Set("Origin", "https://evil.example")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site settle: %d", r.StatusCode)
	}
}

// Injected faults: errors before acting, drops before acting, and "act,
// then drop" that acts and never answers.
func TestFaults(t *testing.T) {
	e := newEnv(t, nil)
	e.faults.FailNext("payments", http.StatusTooManyRequests, http.StatusBadGateway, 0, -1)
	body := sale(visa, "10.00")
	r := e.put(t, "sale", data(body))
	wantError(t, r, http.StatusTooManyRequests, "injected")
	if r.Header.Get("Retry-After") == "" {
		t.Error("injected 429 without Retry-After")
	}
	wantError(t, e.put(t, "sale", data(body)), http.StatusBadGateway, "injected")
	if n := e.countTransactions(t); n != 0 {
		t.Fatalf("injected errors acted: %d transactions", n)
	}
	if _, err := rawPut(e, data(body)); err == nil {
		t.Fatal("a dropped request was answered")
	}
	if n := e.countTransactions(t); n != 0 {
		t.Fatalf("a drop acted: %d transactions", n)
	}
	if _, err := rawPut(e, data(body)); err == nil {
		t.Fatal("act-then-drop was answered")
	}
	back := mustOK(t, e.get(t, body["externalTransactionId"].(string)))
	if back.field(t, "amount") != "10.00" || e.countTransactions(t) != 1 {
		t.Fatalf("after act-then-drop: %s, %d transactions", back.Raw, e.countTransactions(t))
	}
	if !strings.Contains(e.logs.String(), "acted, then dropped") {
		t.Error("the drop is not logged")
	}
}

// rawPut sends a sale and reports a transport error.
func rawPut(e *env, body any) (*http.Response, error) {
	r := strings.NewReader(mustJSON(body))
	req, _ := http.NewRequest(http.MethodPut, e.ts.URL+"/virtualterminal/v1/orgs/"+e.acct.OID+"/transactions/sale", r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.acct.Token)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return resp, err
}
