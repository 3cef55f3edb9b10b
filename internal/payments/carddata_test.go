package payments_test

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil"
)

// The card data of the scan: an American Express test card (its 4-digit
// security code cannot pass for a 3-digit one, and is searched for as a
// whole number, so it cannot match inside an id by chance) and a bank account.
const (
	scanCard    = "378282246310005"
	scanTyped   = "3782 822463 10005"
	scanCode    = "8214"
	scanAccount = "620194837261"
)

// digitsAnySeparators matches digits with any spaces or dashes between them.
func digitsAnySeparators(digits string) *regexp.Regexp {
	parts := strings.Split(digits, "")
	return regexp.MustCompile(strings.Join(parts, `[\s-]*`))
}

// wholeNumber matches digits not inside a longer number or hex string.
func wholeNumber(digits string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9A-Za-z])` + digits + `($|[^0-9A-Za-z])`)
}

// TestCardDataIsNeverKept enters a known card number, security code and bank
// account number through every flow of the virtual terminal, then scans a
// full dump of the database, every line the portal logged, the outbox and
// every page it answered: none of them may hold the number (with or without
// spaces), the code or the account number.
func TestCardDataIsNeverKept(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	var pages []string
	post := func(path string, form url.Values) *payments.Transaction {
		t.Helper()
		res := p.c.PostForm(p.base()+path, form)
		pages = append(pages, res.Body)
		if res.Status != http.StatusSeeOther || strings.HasSuffix(res.Location, "/reverse") {
			return nil
		}
		return p.txOf(res)
	}
	card := func(amount string, extra url.Values) url.Values {
		f := url.Values{"form_token": {p.token(p.c, p.base()+"/payments/new", 0)}, "action": {"sale"}, "amount": {amount},
			"card_number": {scanTyped}, "expiry": {expiry()}, "security_code": {scanCode}, "billing_name": {"Pat Scan"},
			"billing_zip": {"94107"}, "reference": {"SCAN-1"}}
		for k, v := range extra {
			f[k] = v
		}
		return f
	}
	// A sale with a receipt; a form with a problem; a duplicate warning; a
	// decline; an authorization captured and tipped.
	sale := post("/payments/card", card("41.00", url.Values{"receipt_email": {"customer@example.com"}}))
	if sale == nil || sale.Status != payments.StatusApproved {
		t.Fatalf("sale: %+v", sale)
	}
	post("/payments/card", card("42.00", url.Values{"expiry": {"01/20"}}))
	post("/payments/card", card("41.00", nil))
	post("/payments/card", card("2000.00", url.Values{"confirm_duplicate": {"true"}}))
	auth := post("/payments/card", card("43.00", url.Values{"action": {"authorization"}}))
	tx := "/transactions/" + auth.ID.String()
	post(tx+"/capture", url.Values{"form_token": {p.token(p.c, p.base()+tx, 0)}, "amount": {"43.00"}})
	post(tx+"/tip", url.Values{"form_token": {p.token(p.c, p.base()+tx, 0)}, "tip": {"5.00"}})
	// A void, then a refund after settlement.
	void := post("/payments/card", card("44.00", url.Values{"confirm_duplicate": {"true"}}))
	post("/transactions/"+void.ID.String()+"/reverse", url.Values{"form_token": {p.token(p.c, p.base()+"/transactions/"+void.ID.String()+"/reverse", 0)}, "amount": {"44.00"}})
	p.settle()
	post("/transactions/"+sale.ID.String()+"/reverse", url.Values{"form_token": {p.token(p.c, p.base()+"/transactions/"+sale.ID.String()+"/reverse", 0)}, "amount": {"41.00"}})
	post("/transactions/"+sale.ID.String()+"/reverse", url.Values{"form_token": {p.token(p.c, p.base()+"/transactions/"+sale.ID.String()+"/reverse", 0)}, "amount": {"10.00"}, "acknowledge": {"true"}})
	// A customer, a saved card and a bank account (one refused first), a
	// payment with each.
	res := p.c.PostForm(p.base()+"/customers", url.Values{"name": {"Sam Scan"}, "email": {"sam@example.com"}})
	cust := p.base() + res.Location[strings.Index(res.Location, "/customers/"):]
	save := func(extra url.Values) {
		f := url.Values{"form_token": {p.token(p.c, cust, 0)}, "method": {"card"}, "card_number": {scanCard}, "expiry": {expiry()},
			"security_code": {scanCode}, "consent_how": {"phone"}, "consent": {"true"}}
		for k, v := range extra {
			f[k] = v
		}
		r := p.c.PostForm(cust+"/methods", f)
		pages = append(pages, r.Body)
	}
	save(url.Values{"consent": nil})
	save(nil)
	save(url.Values{"method": {"bank_account"}, "card_number": nil, "holder_name": {"Sam Scan"}, "routing_number": {"011401533"},
		"account_number": {scanAccount}, "account_type": {"Checking"}})
	methods := regexp.MustCompile(`name="method_id" value="([0-9a-f-]+)"`).FindAllStringSubmatch(p.c.Get(p.base()+"/payments/new?tab=saved&customer="+cust[strings.LastIndex(cust, "/")+1:]).Body, -1)
	if len(methods) != 2 {
		t.Fatalf("%d saved methods", len(methods))
	}
	for i, m := range methods {
		f := url.Values{"form_token": {p.token(p.c, p.base()+"/payments/new?tab=saved&customer="+cust[strings.LastIndex(cust, "/")+1:], 0)},
			"method_id": {m[1]}, "action": {"sale"}, "amount": {"45.0" + string(rune('0'+i))}, "authorized_how": {"written"}, "authorized": {"true"}}
		if got := post("/payments/saved", f); got == nil || got.Status != payments.StatusApproved {
			t.Fatalf("saved method payment: %+v", got)
		}
	}
	// An ACH debit (one refused first), refunded after settlement.
	ach := func(extra url.Values) *payments.Transaction {
		f := url.Values{"form_token": {p.token(p.c, p.base()+"/payments/new?tab=ach", 0)}, "amount": {"46.00"}, "holder_name": {"Sam Scan"},
			"routing_number": {"011401533"}, "account_number": {scanAccount}, "account_type": {"Checking"},
			"authorized_how": {"phone"}, "authorized": {"true"}}
		for k, v := range extra {
			f[k] = v
		}
		return post("/payments/ach", f)
	}
	ach(url.Values{"routing_number": {"011401534"}})
	debit := ach(nil)
	p.settle()
	dtx := "/transactions/" + debit.ID.String()
	post(dtx+"/reverse", url.Values{"form_token": {p.token(p.c, p.base()+dtx+"/reverse", 0)}, "amount": {"46.00"}})
	// An answer lost, read back by the background check.
	p.env.Sandbox.Root.Faults().FailNext("payments", -1, 503, 503, 503, 503)
	lost := post("/payments/card", card("47.00", url.Values{"confirm_duplicate": {"true"}}))
	testutil.Eventually(t, 20*time.Second, "the lost sale to be read back", func() (bool, string) {
		return p.tx(lost.ID).Status == payments.StatusApproved, string(p.tx(lost.ID).Status)
	})
	for _, path := range []string{"/transactions", "/transactions/export.csv", "/batches", "/transactions/" + sale.ID.String(), cust[len(p.base()):]} {
		pages = append(pages, p.c.Get(p.base()+path).Body)
	}
	testutil.Eventually(t, 10*time.Second, "the receipt in the outbox", func() (bool, string) {
		return len(outboxOf(t, p, mail.KindReceipt)) > 0, "none yet"
	})

	// The scan, which must find what it looks for (a planted hit).
	if !digitsAnySeparators(scanCard).MatchString("x "+scanTyped+" x") || !wholeNumber(scanCode).MatchString(`"cvv":"`+scanCode+`"`) ||
		wholeNumber(scanCode).MatchString("a3f"+scanCode+"9c") {
		t.Fatal("the scan's patterns are wrong")
	}
	dump := pgDump(t, p.env.DBURL)
	if !strings.Contains(dump, "ledger_transactions") || !strings.Contains(dump, "378282") {
		t.Fatal("the dump does not hold the ledger (first six expected)")
	}
	var outbox strings.Builder
	for _, m := range outboxOf(t, p, "") {
		outbox.WriteString(m.Subject + m.Text + m.HTML)
	}
	sources := map[string]string{"database dump": dump, "portal log": p.logs.String(), "outbox": outbox.String(),
		"pages": strings.Join(pages, "\n")}
	for name, text := range sources {
		if len(text) == 0 {
			t.Errorf("%s is empty", name)
		}
		for what, re := range map[string]*regexp.Regexp{"card number": digitsAnySeparators(scanCard),
			"security code": wholeNumber(scanCode), "bank account number": digitsAnySeparators(scanAccount)} {
			if loc := re.FindStringIndex(text); loc != nil {
				t.Errorf("%s holds the %s: …%s…", name, what, text[max(0, loc[0]-80):min(len(text), loc[1]+80)])
			}
		}
	}
	// The receipt: brand and last four, never the expiry.
	r := outboxOf(t, p, mail.KindReceipt)[0]
	if !strings.Contains(r.Text, "American Express ending 0005") || strings.Contains(r.Text, expiry()) ||
		strings.Contains(r.Text, strings.ReplaceAll(expiry(), "/", "")) || !strings.Contains(r.Text, "Corner Bakery") ||
		!strings.Contains(r.Text, "Test Payments") {
		t.Errorf("receipt:\n%s", r.Text)
	}
}

// pgDump dumps the whole database as SQL text with the cluster's pg_dump.
func pgDump(t *testing.T, dbURL string) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	bin := "pg_dump"
	if len(bins) > 0 {
		bin = bins[len(bins)-1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--no-owner", "--dbname="+dbURL).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	return string(out)
}

// outboxOf lists the outbox's messages of a kind ("" for all).
func outboxOf(t *testing.T, p *portal, kind mail.Kind) []mail.Message {
	t.Helper()
	page, err := p.env.App.Outbox.List(context.Background(), mail.ListParams{PerPage: 200})
	if err != nil {
		t.Fatal(err)
	}
	var out []mail.Message
	for _, m := range page.Messages {
		if kind == "" || m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}
