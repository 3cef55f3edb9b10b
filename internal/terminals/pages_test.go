package terminals_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/views"
)

// render draws a page of the room as the handlers do, for u.
func render(t *testing.T, u *models.User, name string, data any, fragment bool) string {
	t.Helper()
	r, err := view.New(views.FS, app.ViewFuncs(func(p string) string { return "/assets/" + p }), scs.New(), "Test Payments")
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
	view.SetUser(c, u)
	view.SetCSRFToken(c, "token")
	if fragment {
		err = r.Fragment(c, http.StatusOK, name, data)
	} else {
		err = r.Page(c, http.StatusOK, name, "Page", data)
	}
	if err != nil {
		t.Fatalf("render %s: %v", name, err)
	}
	return rec.Body.String()
}

// TestPagesDrawEveryState draws the room's pages in the states a launch goes
// through, so a template mistake fails here rather than in front of a user.
func TestPagesDrawEveryState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dv, err := e.svc.Devices(ctx, e.user, e.merchant.ID)
	if err != nil {
		t.Fatal(err)
	}
	if page := render(t, e.user, "terminals/devices", dv, false); !strings.Contains(page, "COUNTER-S300") || !strings.Contains(page, "What the badge is based on") {
		t.Fatalf("devices page:\n%s", page)
	}
	for _, kind := range []string{"sale", "return", "save_card"} {
		fv, err := e.svc.Form(ctx, e.user, e.merchant.ID, terminals.LaunchRequest{Kind: kind, LocationID: e.loc.ID, Device: "EMULATOR"})
		if err != nil {
			t.Fatal(err)
		}
		render(t, e.user, "terminals/new", fv, false)
	}
	show := func(id uuid.UUID, want string) {
		t.Helper()
		v, err := e.svc.Page(ctx, e.user, e.merchant.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		page := render(t, e.user, "terminals/launch", v, false)
		if !strings.Contains(page, want) {
			t.Errorf("%s page lacks %q:\n%s", v.Launch.State, want, page)
		}
		render(t, e.user, "terminals/status", v, true)
	}
	waiting := e.launch(t, e.user, sale("12.00", "P-1", ""))
	show(waiting.ID, "press Cancel on the terminal")
	approved := e.finished(t, waiting.ID, 4*time.Second)
	show(approved.ID, "Add tip")
	for _, kind := range []string{"tip", "void"} {
		fv, err := e.svc.Form(ctx, e.user, e.merchant.ID, terminals.LaunchRequest{Kind: kind, Original: approved.ID.String()})
		if err != nil {
			t.Fatal(err)
		}
		render(t, e.user, "terminals/new", fv, false)
	}
	e.faults.FailNext("terminals", -1)
	unknown := e.launch(t, e.user, sale("3.00", "P-2", "TABLE-D210"))
	show(unknown.ID, "What did the terminal show?")
	declined := e.finished(t, e.launch(t, e.user, sale("3.51", "P-3", "COUNTER-S300")).ID, 4*time.Second)
	show(declined.ID, "Nothing was charged")
	saved := e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "save_card", Consent: true}).ID, 4*time.Second)
	show(saved.ID, "Sale with this card")
	fv, err := e.svc.Form(ctx, e.user, e.merchant.ID, terminals.LaunchRequest{Kind: "token_sale", LocationID: e.loc.ID, Device: "EMULATOR"})
	if err != nil {
		t.Fatal(err)
	}
	if page := render(t, e.user, "terminals/new", fv, false); !strings.Contains(page, "Visa ending 4223") {
		t.Errorf("token sale form lacks the saved card:\n%s", page)
	}
}
