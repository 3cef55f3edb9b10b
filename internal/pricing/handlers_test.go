package pricing_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// adminSession starts the portal and signs an admin in.
func adminSession(t *testing.T) (*apptest.Env, *apptest.Client, *models.User) {
	t.Helper()
	env := apptest.New(t)
	admin, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	c := env.Client(t)
	c.Login("admin@example.com", pw)
	c.Get("/admin/pricing")
	return env, c, admin
}

func modelForm(name, code string) url.Values {
	return url.Values{
		"name": {name}, "upstream_code": {code}, "fee_summary": {"2.95% per transaction"},
		"description": {"With a terminal"}, "device_purchased": {"yes"},
		"required_documents": {"voided_check", "photo_id"}, "active": {"true"},
	}
}

// createModel creates a model through the page and returns its row.
func createModel(t *testing.T, env *apptest.Env, c *apptest.Client, name, code string) *models.PricingModel {
	t.Helper()
	c.Get("/admin/pricing/new")
	if res := c.PostForm("/admin/pricing", modelForm(name, code)); res.Status != http.StatusSeeOther {
		t.Fatalf("create %s: status %d\n%s", code, res.Status, res.Body)
	}
	var m models.PricingModel
	if err := env.DB.Gorm.Where("upstream_code = ? AND archived_at IS NULL", code).Take(&m).Error; err != nil {
		t.Fatal(err)
	}
	return &m
}

// text is the page with entities decoded, for comparing with messages.
func text(body string) string { return html.UnescapeString(body) }

func TestAdminCreatesPricingModel(t *testing.T) {
	env, c, admin := adminSession(t)
	res := c.Get("/admin/pricing/new")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `<label for="pm-code">`) {
		t.Fatalf("new page: %d\n%s", res.Status, res.Body)
	}
	form := modelForm("  Flat rate with terminal ", "  FLAT-TERM-295 ")
	res = c.PostForm("/admin/pricing", form)
	if res.Status != http.StatusSeeOther || res.Location != "/admin/pricing" {
		t.Fatalf("create: %d %s\n%s", res.Status, res.Location, res.Body)
	}
	var m models.PricingModel
	if err := env.DB.Gorm.Take(&m).Error; err != nil {
		t.Fatal(err)
	}
	if m.Name != "Flat rate with terminal" || m.UpstreamCode != "FLAT-TERM-295" || !m.DevicePurchased || !m.Active ||
		m.Description != "With a terminal" || strings.Join(m.RequiredDocumentTypes, ",") != "voided_check,photo_id" ||
		m.CreatedBy == nil || *m.CreatedBy != admin.ID {
		t.Fatalf("stored: %+v", m)
	}
	list := c.Get("/admin/pricing")
	if !strings.Contains(text(list.Body), "Pricing model “Flat rate with terminal” created.") ||
		!strings.Contains(list.Body, `data-pricing-model="FLAT-TERM-295"`) {
		t.Fatalf("list after create:\n%s", list.Body)
	}
	edit := c.Get("/admin/pricing/" + m.ID.String())
	if !strings.Contains(edit.Body, "Created") || !strings.Contains(edit.Body, "admin@example.com") {
		t.Fatalf("history of the new model:\n%s", edit.Body)
	}
}

func TestDuplicateCodeIsRefusedBesideTheFieldAndSavesNothing(t *testing.T) {
	env, c, _ := adminSession(t)
	createModel(t, env, c, "Flat rate", "FLAT-1")

	form := modelForm("Flat rate again", " FLAT-1 ")
	form.Set("description", "Typed <with> care")
	res := c.PostForm("/admin/pricing", form)
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate: status %d\n%s", res.Status, res.Body)
	}
	body := text(res.Body)
	if !strings.Contains(body, `<small id="pm-code-error" class="field-error">The current pricing model “Flat rate” already uses this code.`) {
		t.Fatalf("no message beside the code field:\n%s", res.Body)
	}
	if !regexp.MustCompile(`id="pm-code"[^>]*aria-describedby="pm-code-hint pm-code-error"[^>]*aria-invalid="true"`).MatchString(res.Body) {
		t.Errorf("code field not marked invalid:\n%s", res.Body)
	}
	for _, kept := range []string{`value="Flat rate again"`, `value=" FLAT-1 "`, `Typed &lt;with&gt; care</textarea>`,
		`value="yes" checked`, `value="photo_id" checked`, `value="2.95% per transaction"`} {
		if !strings.Contains(res.Body, kept) {
			t.Errorf("typed value not kept: %s", kept)
		}
	}
	// A taken code is reported together with the form's other problems.
	form.Del("device_purchased")
	res = c.PostForm("/admin/pricing", form)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="pm-code-error"`) || !strings.Contains(res.Body, `id="pm-device-error"`) {
		t.Fatalf("taken code with a missing answer: %d\n%s", res.Status, res.Body)
	}
	var n int64
	env.DB.Gorm.Model(&models.PricingModel{}).Count(&n)
	if n != 1 {
		t.Fatalf("%d models stored, want 1", n)
	}
	env.DB.Gorm.Model(&models.PricingModelEvent{}).Count(&n)
	if n != 1 {
		t.Fatalf("%d audit entries, want 1", n)
	}
}

func TestInvalidFormShowsEachMessageBesideItsField(t *testing.T) {
	env, c, _ := adminSession(t)
	c.Get("/admin/pricing/new")
	res := c.PostForm("/admin/pricing", url.Values{"name": {"Flat"}, "upstream_code": {"FLAT 1"}, "fee_summary": {""}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.Status)
	}
	for _, id := range []string{"pm-code-error", "pm-fee-error", "pm-device-error"} {
		if !strings.Contains(res.Body, `id="`+id+`"`) {
			t.Errorf("no %s", id)
		}
	}
	if strings.Contains(res.Body, `id="pm-name-error"`) {
		t.Error("a valid name was reported")
	}
	if !strings.Contains(res.Body, `<a href="#pm-code">`) {
		t.Error("the error summary does not link to the field")
	}
	var n int64
	env.DB.Gorm.Model(&models.PricingModel{}).Count(&n)
	if n != 0 {
		t.Fatal("an invalid model was stored")
	}
}

func TestEditChangesCodeAndShowsWhoChangedIt(t *testing.T) {
	env, c, _ := adminSession(t)
	m := createModel(t, env, c, "Flat", "FLAT-1")
	path := "/admin/pricing/" + m.ID.String()
	c.Get(path)
	form := modelForm("Flat", "FLAT-2")
	form.Set("version", strconv.Itoa(m.Version))
	if res := c.PostForm(path, form); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", res.Status, res.Body)
	}
	page := c.Get(path)
	if !strings.Contains(page.Body, "<code>FLAT-1</code> → <code>FLAT-2</code>") || !strings.Contains(page.Body, "Changed: upstream pricing code") {
		t.Fatalf("history does not show the code change:\n%s", page.Body)
	}

	// A second admin's form, opened before that save, is refused and keeps its values.
	stale := modelForm("Stale name", "FLAT-3")
	stale.Set("version", strconv.Itoa(m.Version))
	res := c.PostForm(path, stale)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "Someone else changed this pricing model") ||
		!strings.Contains(res.Body, `value="Stale name"`) || !strings.Contains(res.Body, `name="version" value="`+strconv.Itoa(m.Version+1)+`"`) {
		t.Fatalf("stale save: %d\n%s", res.Status, res.Body)
	}
	var got models.PricingModel
	env.DB.Gorm.Take(&got, "id = ?", m.ID)
	if got.UpstreamCode != "FLAT-2" || got.Name != "Flat" {
		t.Fatalf("stale save changed the model: %+v", got)
	}
}

func TestArchiveAndRestoreThroughThePages(t *testing.T) {
	env, c, _ := adminSession(t)
	old := createModel(t, env, c, "Old flat", "FLAT-1")
	if res := c.PostForm("/admin/pricing/"+old.ID.String()+"/archive", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("archive: %d\n%s", res.Status, res.Body)
	}
	list := c.Get("/admin/pricing")
	archivedAt := strings.Index(list.Body, `id="archived-heading"`)
	if row := strings.Index(list.Body, `data-pricing-model="FLAT-1"`); archivedAt < 0 || row < archivedAt {
		t.Fatalf("archived model not in the archived section:\n%s", list.Body)
	}
	page := c.Get("/admin/pricing/" + old.ID.String())
	if !strings.Contains(page.Body, "<fieldset disabled>") || strings.Contains(page.Body, "Save changes") {
		t.Fatalf("archived model is editable:\n%s", page.Body)
	}

	createModel(t, env, c, "New flat", "FLAT-1")
	res := c.PostForm("/admin/pricing/"+old.ID.String()+"/restore", nil)
	if res.Status != http.StatusConflict ||
		!strings.Contains(text(res.Body), "“Old flat” cannot be restored: the current pricing model “New flat” now uses its code FLAT-1.") {
		t.Fatalf("restore onto a taken code: %d\n%s", res.Status, res.Body)
	}

	var taken models.PricingModel
	env.DB.Gorm.Take(&taken, "upstream_code = ? AND archived_at IS NULL", "FLAT-1")
	c.PostForm("/admin/pricing/"+taken.ID.String()+"/archive", nil)
	if res := c.PostForm("/admin/pricing/"+old.ID.String()+"/restore", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d\n%s", res.Status, res.Body)
	}
	if !strings.Contains(text(c.Get("/admin/pricing").Body), "Pricing model “Old flat” restored.") {
		t.Fatal("no confirmation of the restore")
	}
}

func TestModelInUseCannotBeDeleted(t *testing.T) {
	env, c, admin := adminSession(t)
	used := createModel(t, env, c, "Used", "USED")
	if err := env.DB.Gorm.Exec("INSERT INTO applications (id, owner_id, pricing_model_id) VALUES (?, ?, ?)",
		uuid.New(), admin.ID, used.ID).Error; err != nil {
		t.Fatal(err)
	}
	path := "/admin/pricing/" + used.ID.String() + "/delete"
	confirm := c.Get(path)
	if !strings.Contains(text(confirm.Body), "“Used” is used by applications, so it cannot be deleted. Archive it instead") ||
		!strings.Contains(confirm.Body, `action="/admin/pricing/`+used.ID.String()+`/archive"`) {
		t.Fatalf("confirm page of a model in use:\n%s", confirm.Body)
	}
	res := c.PostForm(path, nil)
	if res.Status != http.StatusConflict || !strings.Contains(text(res.Body), "cannot be deleted. Archive it instead") {
		t.Fatalf("delete in use: %d\n%s", res.Status, res.Body)
	}
	if _, err := env.App.Pricing.Get(context.Background(), used.ID); err != nil {
		t.Fatalf("model in use was deleted: %v", err)
	}

	unused := createModel(t, env, c, "Typo", "TYPO")
	c.Get("/admin/pricing/" + unused.ID.String() + "/delete")
	if res := c.PostForm("/admin/pricing/"+unused.ID.String()+"/delete", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete unused: %d\n%s", res.Status, res.Body)
	}
	if res := c.Get("/admin/pricing/" + unused.ID.String()); res.Status != http.StatusNotFound {
		t.Fatalf("deleted model page: %d", res.Status)
	}
}

func TestSalesRepGets403OnEveryPricingRoute(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)
	m := createModel(t, env, admin, "Flat", "FLAT-1")

	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login("rep@example.com", pw)
	c.Get("/")
	id := m.ID.String()
	routes := []struct{ method, path string }{
		{http.MethodGet, "/admin/pricing"},
		{http.MethodGet, "/admin/pricing/new"},
		{http.MethodPost, "/admin/pricing"},
		{http.MethodGet, "/admin/pricing/" + id},
		{http.MethodPost, "/admin/pricing/" + id},
		{http.MethodPost, "/admin/pricing/" + id + "/archive"},
		{http.MethodPost, "/admin/pricing/" + id + "/restore"},
		{http.MethodGet, "/admin/pricing/" + id + "/delete"},
		{http.MethodPost, "/admin/pricing/" + id + "/delete"},
	}
	for _, r := range routes {
		body := modelForm("Rep's model", "REP-1")
		body.Set("csrf_token", c.CSRF())
		res := c.Do(r.method, r.path, strings.NewReader(body.Encode()),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Csrf-Token": {c.CSRF()}})
		if res.Status != http.StatusForbidden {
			t.Errorf("%s %s: status %d, want 403", r.method, r.path, res.Status)
		}
	}
	var got models.PricingModel
	env.DB.Gorm.Take(&got, "id = ?", m.ID)
	var n int64
	env.DB.Gorm.Model(&models.PricingModel{}).Count(&n)
	if n != 1 || got.Archived() || got.Version != m.Version {
		t.Fatalf("a rep changed pricing models: %d models, %+v", n, got)
	}
}
