package merchants_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// A boarded webhook makes the application a merchant, once: repeats, later
// states and out-of-order deliveries do nothing twice. The application page
// and the dashboard lead with the outcome and link the merchant.
func TestBoardingWebhookMakesOneMerchant(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	upID := "up-blue-fern"
	appID := w.linkedApplication(t, w.rep, "Blue Fern", upID)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)

	// Installed (later) arrives before boarded (earlier).
	w.webhook(t, upID, "installed", t0.Add(10*time.Minute))
	w.webhook(t, upID, "boarded", t0)
	w.webhook(t, upID, "boarded", t0) // a repeat
	w.webhook(t, upID, "active", t0.Add(20*time.Minute))
	if n := w.count(t, `SELECT count(*) FROM merchants WHERE application_id = $1`, appID); n != 1 {
		t.Fatalf("%d merchants, want 1", n)
	}
	id := w.merchantOf(t, appID)
	m := w.merchant(t, id)
	if !m.BoardedAt.Equal(t0) || m.Name != "Blue Fern" || m.OwnerID != w.rep.ID || m.Suspended() || m.AlertOpen() {
		t.Errorf("merchant = %+v", m)
	}
	if got := w.actions(t, id); !slices.Equal(got, []string{"merchant_boarded"}) {
		t.Errorf("merchant trail = %v", got)
	}

	page := w.repC.Get("/applications/" + appID.String())
	if !strings.Contains(page.Body, `data-state="active"`) || strings.Contains(page.Body, ">Sent to merchant<") {
		t.Errorf("the application page does not lead with the outcome")
	}
	if !strings.Contains(page.Body, `href="/merchants/`+id.String()+`"`) {
		t.Error("the application page does not link its merchant")
	}
	list := w.repC.Get("/?status=boarded")
	if !strings.Contains(list.Body, appID.String()) || !strings.Contains(list.Body, ">Active<") {
		t.Errorf("the dashboard's boarded filter does not show it:\n%s", list.Body)
	}
	if strings.Contains(w.repC.Get("/?status=with_merchant").Body, appID.String()) {
		t.Error("a boarded application is still listed as with the merchant")
	}
	merchantsPage := w.repC.Get("/merchants")
	if !strings.Contains(merchantsPage.Body, "/merchants/"+id.String()) || strings.Contains(w.otherC.Get("/merchants").Body, id.String()) {
		t.Error("the merchants list is wrong for the owner or another rep")
	}
	show := w.repC.Get("/merchants/" + id.String())
	for _, want := range []string{"Blue Fern", "Sales rep: rep@example.com", "People of the merchant", "Credentials",
		"recorded that the processor boarded the merchant", "Boarded", "Installed", "Active"} {
		if !strings.Contains(show.Body, want) {
			t.Errorf("the merchant page lacks %q", want)
		}
	}
	if strings.Contains(show.Body, "12-3456789") || strings.Contains(show.Body, "Internal note") {
		t.Error("the merchant page shows the application's personal data or notes")
	}
}

// A declined or withdrawn after boarding is recorded and raised to the
// owning rep and the admins (banner, e-mail), never applied: the merchant
// is not suspended until an admin decides. Repeats raise nothing twice; a
// decline that arrives before the boarding it follows still raises it.
func TestDeclinedAfterBoardingIsRaisedNotApplied(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.CreateUser(t, "admin2@example.com", models.RoleAdmin)
	id, appID, upID := w.boarded(t, w.rep, "Gingham Goods")
	later := time.Now().Add(-time.Minute)
	w.webhook(t, upID, "declined", later)
	w.webhook(t, upID, "declined", later)

	m := w.merchant(t, id)
	if !m.AlertOpen() || *m.AlertStatus != "declined" || m.Suspended() {
		t.Fatalf("merchant after a late decline: %+v", m)
	}
	alerts := w.outbox(t, mail.KindMerchantAlert)
	var to []string
	for _, a := range alerts {
		to = append(to, a.To)
		if !strings.Contains(a.Text, "Gingham Goods") || !strings.Contains(a.Text, "Declined") || !strings.Contains(a.Text, "/merchants/"+id.String()) {
			t.Errorf("alert e-mail:\n%s", a.Text)
		}
	}
	slices.Sort(to)
	if !slices.Equal(to, []string{"admin2@example.com", "admin@example.com", "rep@example.com"}) {
		t.Errorf("alert e-mailed to %v, want the rep and every admin once", to)
	}
	for _, body := range []string{w.repC.Get("/merchants/" + id.String()).Body, w.adminC.Get("/merchants/" + id.String()).Body} {
		if !strings.Contains(body, `id="merchant-alert"`) || !strings.Contains(body, "The processor now says Declined") {
			t.Errorf("no banner on the merchant page")
		}
	}
	if !strings.Contains(w.adminC.Get("/merchants/"+id.String()).Body, `action="/merchants/`+id.String()+`/alert"`) {
		t.Error("the admin cannot decide")
	}
	if res := w.repC.PostForm("/merchants/"+id.String()+"/alert", map[string][]string{"decision": {"suspend"}}); res.Status != http.StatusForbidden {
		t.Errorf("a rep decides: %d", res.Status)
	}
	// The application leads with the decline.
	if page := w.repC.Get("/applications/" + appID.String()); !strings.Contains(page.Body, `data-state="declined"`) {
		t.Error("the application does not show the decline")
	}

	// The admin suspends.
	w.adminC.Get("/merchants/" + id.String())
	if res := w.adminC.PostForm("/merchants/"+id.String()+"/alert", map[string][]string{"decision": {"suspend"}, "note": {"Checked with the processor"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("decide: %d\n%s", res.Status, res.Body)
	}
	if m := w.merchant(t, id); !m.Suspended() || m.AlertOpen() {
		t.Errorf("after the decision: %+v", m)
	}
	if got := w.actions(t, id); !slices.Equal(got, []string{"merchant_boarded", "merchant_alert", "merchant_alert_resolved"}) {
		t.Errorf("trail = %v", got)
	}

	// Out of order: a withdrawal that happened after boarding arrives first.
	up2 := "up-tartan"
	app2 := w.linkedApplication(t, w.rep, "Tartan Teas", up2)
	t0 := time.Now().Add(-2 * time.Hour)
	w.webhook(t, up2, "withdrawn", t0.Add(time.Hour))
	if n := w.count(t, `SELECT count(*) FROM merchants WHERE application_id = $1`, app2); n != 0 {
		t.Fatal("a withdrawn application became a merchant")
	}
	w.webhook(t, up2, "boarded", t0)
	m2 := w.merchant(t, w.merchantOf(t, app2))
	if !m2.AlertOpen() || *m2.AlertStatus != "withdrawn" {
		t.Errorf("a withdrawal after boarding, delivered first, was not raised: %+v", m2)
	}
	// A decline older than the boarding is history, not news.
	up3 := "up-platypus"
	app3 := w.linkedApplication(t, w.rep, "Platypus Pies", up3)
	w.webhook(t, up3, "boarded", t0)
	w.webhook(t, up3, "declined", t0.Add(-time.Hour))
	if m3 := w.merchant(t, w.merchantOf(t, app3)); m3.AlertOpen() {
		t.Errorf("a decline before boarding raised an alert: %+v", m3)
	}
}
