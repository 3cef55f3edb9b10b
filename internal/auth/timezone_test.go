package auth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// The browser's zone becomes the user's at the first sign-in and never
// replaces a choice; pages then show times in it.
func TestTimeZoneFromTheBrowserAndChosenByTheUser(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	u, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	signIn := func(tz string) *apptest.Client {
		c := env.Client(t)
		c.Get("/login")
		if res := c.PostForm("/login", url.Values{"email": {u.Email}, "password": {pw}, "tz": {tz}}); res.Status != http.StatusSeeOther {
			t.Fatalf("sign in: %d", res.Status)
		}
		return c
	}
	zone := func() string {
		var z string
		env.DB.Gorm.Raw("SELECT time_zone FROM users WHERE id = ?", u.ID).Scan(&z)
		return z
	}
	signIn("Not a zone")
	if z := zone(); z != "" {
		t.Fatalf("a bad zone from the browser was kept: %q", z)
	}
	c := signIn("America/Los_Angeles")
	if z := zone(); z != "America/Los_Angeles" {
		t.Fatalf("zone after sign-in: %q", z)
	}
	signIn("Europe/Paris")
	if z := zone(); z != "America/Los_Angeles" {
		t.Fatalf("a later browser replaced the zone: %q", z)
	}
	// A page's times are in the zone: the new application's creation time.
	res := c.PostForm("/applications", nil)
	page := c.Get(res.Location)
	want := env.Clock.Now().In(mustZone(t, "America/Los_Angeles")).Format("2006-01-02 15:04 MST")
	if !strings.Contains(page.Body, want) {
		t.Fatalf("application page does not show %q", want)
	}
	if res := c.PostForm("/account/time-zone", url.Values{"time_zone": {"Mars/Olympus"}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "Mars/Olympus") {
		t.Fatalf("unknown zone: %d", res.Status)
	}
	if res := c.PostForm("/account/time-zone", url.Values{"time_zone": {"Asia/Tokyo"}}); res.Status != http.StatusSeeOther || zone() != "Asia/Tokyo" {
		t.Fatalf("choose a zone: %d, %q", res.Status, zone())
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
