package payments_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/payments"
)

// TestCardSaleThroughThePages: a sale through the real handler; the same form
// sent again is the same transaction; the pages say no-store and keep the
// strict CSP; a form with a problem comes back without the card number.
func TestCardSaleThroughThePages(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	page := p.c.Get(p.base() + "/payments/new")
	if page.Status != http.StatusOK || page.Header.Get("Cache-Control") != "no-store" ||
		!strings.Contains(page.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("payment page: %d %q %q", page.Status, page.Header.Get("Cache-Control"), page.Header.Get("Content-Security-Policy"))
	}
	if strings.Contains(page.Body, "<script>") || strings.Contains(page.Body, "https://") {
		t.Fatal("the payment page loads something not its own")
	}

	// A problem: 422, every value kept but the card number and security code.
	form := url.Values{"form_token": {p.token(p.c, p.base()+"/payments/new", 0)}, "action": {"sale"}, "amount": {"$1,234.50"},
		"card_number": {"4111 1111 1111 1112"}, "expiry": {"13/40"}, "security_code": {"739"}, "billing_zip": {"94107"},
		"reference": {"INV-77"}}
	res := p.c.PostForm(p.base()+"/payments/card", form)
	if res.Status != http.StatusUnprocessableEntity || strings.Contains(res.Body, "4111 1111") || strings.Contains(res.Body, "41111111") || strings.Contains(res.Body, `value="739"`) ||
		!strings.Contains(res.Body, "Re-enter the card number") || !strings.Contains(res.Body, `value="$1,234.50"`) ||
		!strings.Contains(res.Body, `value="INV-77"`) || !strings.Contains(res.Body, "not a valid card number") {
		t.Fatalf("re-rendered form: %d\n%s", res.Status, res.Body)
	}
	// Corrected and sent with the same form (its token): approved.
	form.Set("card_number", "4111 1111 1111 1111")
	form.Set("expiry", expiry())
	sale := p.txOf(p.c.PostForm(p.base()+"/payments/card", form))
	if sale.Status != payments.StatusApproved || sale.TotalCents() != 123450 || sale.Reference != "INV-77" {
		t.Fatalf("sale: %+v", sale)
	}
	// The very same form again: the same transaction, nothing charged twice.
	again := p.c.PostForm(p.base()+"/payments/card", form)
	if again.Location != res.Location && p.txOf(again).ID != sale.ID {
		t.Fatal("the second submit made another transaction")
	}
	if n := len(p.upstream()); n != 1 {
		t.Fatalf("%d upstream transactions", n)
	}
	show := p.c.Get(p.base() + "/transactions/" + sale.ID.String())
	if show.Status != http.StatusOK || !strings.Contains(show.Body, "411111******1111") || !strings.Contains(show.Body, "Approved") ||
		show.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("transaction page: %d\n%s", show.Status, show.Body)
	}
	list := p.c.Get(p.base() + "/transactions?last4=1111&min=1000")
	if list.Status != http.StatusOK || !strings.Contains(list.Body, "$1,234.50") {
		t.Fatalf("ledger: %d\n%s", list.Status, list.Body)
	}
	// The search box finds the last four; each filter in force is a chip
	// linking to the same list without it.
	list = p.c.Get(p.base() + "/transactions?q=1111&status=approved")
	chip := `<a href="` + p.base() + `/transactions?q=1111" class="chip"><span class="visually-hidden">Remove filter: </span>Status: Approved or authorized`
	if list.Status != http.StatusOK || !strings.Contains(list.Body, "$1,234.50") || !strings.Contains(list.Body, chip) ||
		!strings.Contains(list.Body, "Search: “1111”") {
		t.Fatalf("ledger searched: %d\n%s", list.Status, list.Body)
	}
	csv := p.c.Get(p.base() + "/transactions/export.csv")
	if csv.Status != http.StatusOK || !strings.Contains(csv.Body, "Visa 411111******1111") || strings.Contains(csv.Body, "4111111111111111") {
		t.Fatalf("export: %d\n%s", csv.Status, csv.Body)
	}
	if b := p.c.Get(p.base() + "/batches"); b.Status != http.StatusOK || !strings.Contains(b.Body, "$1,234.50") {
		t.Fatalf("batches: %d\n%s", b.Status, b.Body)
	}
}

// TestPaymentRightsOnEveryRoute: each action needs its right (403), another
// merchant's member sees nothing (404), the owning rep sees the ledger
// without names, a suspended merchant cannot transact (409).
func TestPaymentRightsOnEveryRoute(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	sale := p.txOf(p.cardSale(p.c, "4111111111111111", "123", "25.00", url.Values{"billing_name": {"Pat Cardholder"}}))
	tx := p.base() + "/transactions/" + sale.ID.String()
	_, _, viewer := p.member("viewer@bakery.example", merchants.PermViewOnly)
	_, _, refunder := p.member("refunds@bakery.example", merchants.PermRefund)
	// Another merchant and its member.
	other := p.board(p.admin, "Other Shop")
	_, _, otherC := memberOf(t, p.env, p.admin, other, "member@other.example", merchants.PermViewOnly)

	if r := viewer.Get(tx); r.Status != http.StatusOK || !strings.Contains(r.Body, "Pat Cardholder") || strings.Contains(r.Body, "Reverse…") {
		t.Fatalf("viewer on the transaction: %d", r.Status)
	}
	for _, path := range []string{p.base() + "/payments/new", tx + "/reverse"} {
		if r := viewer.Get(path); r.Status != http.StatusForbidden {
			t.Errorf("viewer GET %s: %d, want 403", path, r.Status)
		}
	}
	for _, path := range []string{"/payments/card", "/payments/ach", "/payments/saved", "/transactions/" + sale.ID.String() + "/reverse",
		"/transactions/" + sale.ID.String() + "/capture", "/transactions/" + sale.ID.String() + "/tip"} {
		if r := viewer.PostForm(p.base()+path, url.Values{"amount": {"1.00"}}); r.Status != http.StatusForbidden {
			t.Errorf("viewer POST %s: %d, want 403", path, r.Status)
		}
	}
	for _, path := range []string{"", "/payments/new", "/transactions", "/batches", "/customers", "/transactions/" + sale.ID.String()} {
		if r := otherC.Get(p.base() + path); r.Status != http.StatusNotFound {
			t.Errorf("another merchant's member GET %s: %d, want 404", path, r.Status)
		}
	}
	// The refunder reverses by refund: the full amount is a refund, since
	// a void needs the void right.
	page := refunder.Get(tx)
	if !strings.Contains(page.Body, "Reverse…") || strings.Contains(page.Body, "Adjust the tip") {
		t.Fatalf("refunder's actions:\n%s", page.Body)
	}
	// The owning rep sees the ledger but not the cardholder's name.
	repC := p.env.Client(t)
	repC.Login("rep@example.com", p.repPW)
	if r := repC.Get(tx); r.Status != http.StatusOK || strings.Contains(r.Body, "Pat Cardholder") || strings.Contains(r.Body, "Reverse…") {
		t.Fatalf("rep on the transaction: %d", r.Status)
	}
	if r := repC.Get(p.base() + "/payments/new"); r.Status != http.StatusForbidden {
		t.Errorf("rep on the virtual terminal: %d, want 403", r.Status)
	}
	// Suspended: nothing can be charged.
	if err := p.env.App.Merchants.Suspend(t.Context(), p.admin, p.merchant, "chargebacks"); err != nil {
		t.Fatal(err)
	}
	if r := p.cardSaleNoToken(p.c, "5555555555554444", "30.00"); r.Status != http.StatusConflict {
		t.Fatalf("sale of a suspended merchant: %d", r.Status)
	}
	if n := len(p.upstream()); n != 1 {
		t.Fatalf("%d upstream transactions", n)
	}
}

// TestConcurrentRefundsThroughThePages: ten refunds of $15 of a settled $100
// sale sent at once, each from its own Reverse page: six go through, and the
// sale is never refunded more than it was paid.
func TestConcurrentRefundsThroughThePages(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	sale := p.txOf(p.cardSale(p.c, "4111111111111111", "123", "100.00", nil))
	tx := p.base() + "/transactions/" + sale.ID.String()
	p.settle()
	// The first reverse learns the settlement: the void is refused.
	res := p.c.PostForm(tx+"/reverse", url.Values{"form_token": {p.token(p.c, tx+"/reverse", 0)}, "amount": {"100.00"}})
	if res.Status != http.StatusSeeOther || !strings.HasSuffix(res.Location, "/reverse") {
		t.Fatalf("void of a settled sale: %d %s", res.Status, res.Location)
	}
	tokens := make([]string, 10)
	for i := range tokens {
		tokens[i] = p.token(p.c, tx+"/reverse", 0)
	}
	var wg sync.WaitGroup
	for _, token := range tokens {
		wg.Go(func() {
			p.c.PostForm(tx+"/reverse", url.Values{"form_token": {token}, "amount": {"15.00"}, "acknowledge": {"true"}})
		})
	}
	wg.Wait()
	got := p.tx(sale.ID)
	if got.RefundedCents != 9000 || p.upstreamOf("CreditReturn") != 6 {
		t.Fatalf("refunded %d of 10000 with %d upstream returns; want 9000 and 6", got.RefundedCents, p.upstreamOf("CreditReturn"))
	}
}
