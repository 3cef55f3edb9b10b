package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// junkForm fills every field an unsafe form of these rooms reads with a value no page
// would send: a form token that is no token, checkboxes that are neither ticked nor
// not, amounts that are no amount, a permission and a kind that do not exist, a
// column count out of bounds, ids that are not ids.
var junkForm = url.Values{
	"form_token": {"not-a-token"}, "kind": {"bogus"}, "amount": {"abc"}, "tip": {"-x"}, "location": {"nowhere"},
	"device": {"none"}, "original": {"x"}, "outcome": {"bogus"}, "level2": {"perhaps"}, "tax_exempt": {"perhaps"},
	"confirm_duplicate": {"perhaps"}, "authorized": {"perhaps"}, "consent": {"perhaps"}, "understood": {"perhaps"},
	"acknowledge": {"perhaps"}, "confirm_tip": {"perhaps"}, "permissions": {"bogus"}, "columns": {"-1"},
	"owner_id": {"not-a-uuid"}, "version": {"x"}, "email": {"not an address"}, "method_id": {"x"}, "action": {"bogus"},
	"on_duplicate": {"bogus"}, "oid": {"\x00"}, "token": {""}, "api_key": {""}, "location_id": {""}, "decision": {"bogus"},
}

// unsafeRoute is one unsafe route and what an under-privileged user gets from it.
type unsafeRoute struct {
	room, path string
	// who is refused, and with which status.
	who  string
	want int
}

// Every unsafe route of payments, terminals, merchants, imports, documents and the
// workspace checks the user's rights before it reads anything of the form: a person
// without the right gets 403 (or 404 where the thing is not theirs to see), whether
// the form is empty or filled with junk — never 400, 409 or 422 for a form they may
// not send at all, nor 500.
func TestRightsAreCheckedBeforeTheForm(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithSandbox(nil))
	s := apptest.Seed(t, env)
	ctx := context.Background()
	admin, err := env.App.Auth.Users().ByEmail(ctx, s.Admin.Email)
	if err != nil {
		t.Fatal(err)
	}
	// A member of the merchant who may only look, another rep, and the owning rep.
	res, err := env.App.Merchants.Invite(ctx, admin, s.Merchant, merchants.MemberInput{Email: "viewer@bakery.example", Name: "Vi Ewer",
		Permissions: merchants.Permissions{merchants.PermViewOnly}})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := env.App.Auth.ReInvite(ctx, admin, res.User, nil)
	if err != nil {
		t.Fatal(err)
	}
	const viewerPW = "Tangerine-ladder-quietly-42"
	if _, err := env.App.Auth.AcceptInvitation(ctx, token, viewerPW, viewerPW); err != nil {
		t.Fatal(err)
	}
	clients := map[string]*apptest.Client{"viewer": env.Client(t), "rep": env.Client(t)}
	clients["viewer"].Login("viewer@bakery.example", viewerPW)
	clients["rep"].Login(s.Rep.Email, s.Rep.Password)
	_, clients["other rep"] = env.SignedIn(t, "other.rep@example.com", models.RoleSalesRep)
	batch := importBatch(t, clients["rep"])

	m := "/merchants/" + s.Merchant.String()
	tx := m + "/transactions/" + s.Transaction.String()
	customer := m + "/customers/" + s.Customer.String()
	launch := m + "/terminals/launches/" + uuid.NewString()
	draft, linked := "/applications/"+s.Draft.String(), "/applications/"+s.Linked.String()
	doc := draft + "/documents/" + uuid.NewString()
	routes := []unsafeRoute{
		{"payments", m + "/payments/card", "viewer", http.StatusForbidden},
		{"payments", m + "/payments/ach", "viewer", http.StatusForbidden},
		{"payments", m + "/payments/saved", "viewer", http.StatusForbidden},
		{"payments", tx + "/reverse", "viewer", http.StatusForbidden},
		{"payments", tx + "/capture", "viewer", http.StatusForbidden},
		{"payments", tx + "/tip", "viewer", http.StatusForbidden},
		{"payments", tx + "/receipt", "viewer", http.StatusForbidden},
		{"payments", m + "/customers", "viewer", http.StatusForbidden},
		{"payments", customer + "/methods", "viewer", http.StatusForbidden},
		{"payments", customer + "/methods/" + uuid.NewString() + "/remove", "viewer", http.StatusForbidden},
		{"payments", m + "/payments/card", "other rep", http.StatusNotFound},
		{"terminals", m + "/terminals/refresh", "viewer", http.StatusForbidden},
		{"terminals", m + "/terminals/launches", "viewer", http.StatusForbidden},
		{"terminals", launch + "/confirm", "viewer", http.StatusForbidden},
		{"terminals", launch + "/resend", "viewer", http.StatusForbidden},
		{"terminals", m + "/terminals/launches", "other rep", http.StatusNotFound},
		{"merchants", m + "/payments", "rep", http.StatusForbidden},
		{"merchants", m + "/terminals", "rep", http.StatusForbidden},
		{"merchants", m + "/locations", "rep", http.StatusForbidden},
		{"merchants", m + "/suspend", "rep", http.StatusForbidden},
		{"merchants", m + "/alert", "rep", http.StatusForbidden},
		{"merchants", m + "/fetch", "rep", http.StatusForbidden},
		{"merchants", m + "/members", "viewer", http.StatusForbidden},
		{"merchants", m + "/members/" + uuid.NewString(), "viewer", http.StatusForbidden},
		{"merchants", m + "/members/" + uuid.NewString() + "/remove", "viewer", http.StatusForbidden},
		{"merchants", m + "/payments/test", "viewer", http.StatusForbidden},
		{"merchants", m + "/members", "other rep", http.StatusNotFound},
		{"imports", batch + "/mapping", "other rep", http.StatusNotFound},
		{"imports", batch + "/import", "other rep", http.StatusNotFound},
		{"imports", "/imports", "viewer", http.StatusNotFound},
		{"imports", batch + "/mapping", "viewer", http.StatusNotFound},
		{"documents", draft + "/documents", "other rep", http.StatusNotFound},
		{"documents", doc + "/replace", "other rep", http.StatusNotFound},
		{"documents", doc + "/delete", "other rep", http.StatusNotFound},
		{"documents", draft + "/documents", "viewer", http.StatusNotFound},
		{"workspace", "/applications", "viewer", http.StatusNotFound},
		{"workspace", draft + "/sections/business", "other rep", http.StatusNotFound},
		{"workspace", draft + "/delete", "other rep", http.StatusNotFound},
		{"workspace", draft + "/reveal", "rep", http.StatusForbidden},
		{"workspace", draft + "/reassign", "rep", http.StatusForbidden},
		{"workspace", draft + "/restore", "rep", http.StatusNotFound}, // not deleted: nothing to restore
		{"workspace", draft + "/submit", "other rep", http.StatusNotFound},
		{"workspace", linked + "/handoff/resend", "other rep", http.StatusNotFound},
		{"workspace", linked + "/reminders/pause", "other rep", http.StatusNotFound},
		{"workspace", draft + "/sections/business", "viewer", http.StatusNotFound},
	}
	for _, r := range routes {
		c := clients[r.who]
		for name, form := range map[string]url.Values{"no form": nil, "a junk form": junkForm} {
			var sent url.Values
			if form != nil {
				sent = url.Values{}
				for k, v := range form {
					sent[k] = v
				}
			}
			if got := c.PostForm(r.path, sent); got.Status != r.want {
				t.Errorf("%s: %s POST %s with %s: %d, want %d\n%.300s", r.room, r.who, r.path, name, got.Status, r.want, got.Body)
			}
		}
	}
}

// importBatch uploads a small file as c and returns its batch's path.
func importBatch(t *testing.T, c *apptest.Client) string {
	t.Helper()
	c.Get("/imports")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "crm.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte("Company,Legal Name\nBlue Fern,Blue Fern Coffee LLC\n"))
	_ = mw.Close()
	res := c.Do(http.MethodPost, "/imports", &body, http.Header{
		"Content-Type": {mw.FormDataContentType()}, "X-Csrf-Token": {c.CSRF()}, "Accept": {"application/json"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	i := strings.Index(res.Body, "/imports/")
	if i < 0 {
		t.Fatalf("upload answered %s", res.Body)
	}
	return res.Body[i : i+len("/imports/")+36]
}
