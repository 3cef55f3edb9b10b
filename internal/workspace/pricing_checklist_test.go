package workspace_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
)

// addPricingModel stores a pricing model and returns its id.
func addPricingModel(t *testing.T, w *workspace, name, code string, active bool, archived bool, docs ...string) uuid.UUID {
	t.Helper()
	m := models.PricingModel{
		ID: uuid.New(), Name: name, UpstreamCode: code, FeeSummary: name + " fees", RequiredDocumentTypes: docs,
		Active: active, CreatedAt: time.Now(), UpdatedAt: time.Now(), Version: 1,
	}
	if m.RequiredDocumentTypes == nil {
		m.RequiredDocumentTypes = []string{}
	}
	if archived {
		now := time.Now()
		m.ArchivedAt = &now
	}
	if err := w.env.DB.Gorm.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	return m.ID
}

var checklistCount = regexp.MustCompile(`<strong[^>]*>(\d+)</strong> things? left`)

// outstanding returns the checklist fragment and its number of items.
func outstanding(t *testing.T, w *workspace, id uuid.UUID) (string, int) {
	t.Helper()
	res := w.repC.Get("/applications/" + id.String() + "/checklist")
	if res.Status != http.StatusOK {
		t.Fatalf("checklist: %d", res.Status)
	}
	m := checklistCount.FindStringSubmatch(res.Body)
	if m == nil {
		if strings.Contains(res.Body, "Everything needed is filled in.") {
			return res.Body, 0
		}
		t.Fatalf("no count in the checklist:\n%s", res.Body)
	}
	n, _ := strconv.Atoi(m[1])
	return res.Body, n
}

func TestPricingChoiceAndDocumentsDriveTheChecklist(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	standard := addPricingModel(t, w, "Standard", "STD-1", true, false, "voided_check")
	paused := addPricingModel(t, w, "Paused offer", "PAUSED", false, false)
	retired := addPricingModel(t, w, "Retired offer", "OLD-1", true, true)
	id := create(t, w.repC)

	page, _ := show(t, w.repC, id)
	sel := regexp.MustCompile(`(?s)<select id="pricing.model".*?</select>`).FindString(page.Body)
	if !strings.Contains(sel, standard.String()) || strings.Contains(sel, paused.String()) || strings.Contains(sel, retired.String()) {
		t.Errorf("pricing choices:\n%s", sel)
	}
	body, _ := outstanding(t, w, id)
	if !strings.Contains(body, `<a href="?step=pricing#pricing.model" data-goto-field="pricing.model" data-step-link="pricing">Choose a pricing model.</a>`) {
		t.Errorf("checklist without the pricing item:\n%s", body)
	}

	// Models that cannot be chosen are refused.
	for _, bad := range []string{paused.String(), retired.String(), uuid.NewString(), "x"} {
		res := autosave(t, w.repC, id, "pricing", url.Values{"pricing.model": {bad}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="pricing.model-error"`) {
			t.Errorf("choosing %s: %d", bad, res.Status)
		}
	}
	if res := autosave(t, w.repC, id, "pricing", url.Values{"pricing.model": {standard.String()}}); res.Status != http.StatusOK {
		t.Fatalf("choose standard: %d\n%s", res.Status, res.Body)
	}
	body, _ = outstanding(t, w, id)
	if strings.Contains(body, "Choose a pricing model") || !strings.Contains(body, `<a href="?step=documents#documents.voided_check" data-goto-field="documents.voided_check" data-step-link="documents">Upload the required document: Voided check or bank letter.</a>`) {
		t.Errorf("checklist after choosing:\n%s", body)
	}
	// An uploaded document of the type ticks it off; a deleted one does not.
	insertDoc := func(deleted bool) {
		var del *time.Time
		if deleted {
			now := time.Now()
			del = &now
		}
		doc := models.Document{ID: uuid.New(), ApplicationID: id, DocType: "voided_check", DisplayName: "check.pdf", ContentType: "application/pdf",
			SizeBytes: 10, SHA256: "x", StorageKey: uuid.NewString(), CreatedAt: time.Now(), DeletedAt: del, UpstreamStatus: "pending"}
		if err := w.env.DB.Gorm.Create(&doc).Error; err != nil {
			t.Fatal(err)
		}
	}
	insertDoc(true)
	if body, _ = outstanding(t, w, id); !strings.Contains(body, "Voided check") {
		t.Error("a deleted document ticked the item off")
	}
	insertDoc(false)
	if body, _ = outstanding(t, w, id); strings.Contains(body, "Voided check") {
		t.Error("an uploaded document did not tick the item off")
	}

	// Once the model is archived the application keeps it, labelled, and asks for another.
	if err := w.env.DB.Gorm.Exec(`UPDATE pricing_models SET archived_at = now() WHERE id = ?`, standard).Error; err != nil {
		t.Fatal(err)
	}
	page, _ = show(t, w.repC, id)
	if !strings.Contains(page.Body, `<option value="`+standard.String()+`" selected>Standard (no longer offered)</option>`) ||
		!strings.Contains(page.Body, "<strong>Standard</strong>, which is no longer offered") {
		t.Errorf("archived model not shown as such:\n%s", page.Body)
	}
	if res := autosave(t, w.repC, id, "pricing", url.Values{"pricing.model": {standard.String()}}); res.Status != http.StatusOK {
		t.Errorf("keeping the archived model: %d", res.Status)
	}
	if body, _ = outstanding(t, w, id); !strings.Contains(body, "Choose a pricing model") {
		t.Error("an archived model counts as chosen")
	}
	if rec := stored(t, w, id); rec.App.PricingModelID == nil || *rec.App.PricingModelID != standard {
		t.Error("the archived model was dropped")
	}
}

func TestChecklistShrinksAsSectionsAreFilled(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	_, before := outstanding(t, w, id)
	autosave(t, w.repC, id, "contact", url.Values{"contact.name": {"Jane Doe"}, "contact.email": {"jane@bluefern.example"}})
	body, after := outstanding(t, w, id)
	if after != before-2 {
		t.Errorf("checklist went from %d to %d items", before, after)
	}
	if strings.Contains(body, "#contact.name") || !strings.Contains(body, `id="review-link" role="button" class="secondary outline">Review and submit`) {
		t.Errorf("checklist:\n%s", body)
	}
	// Invalid values are checklist items too, linked to their field.
	autosave(t, w.repC, id, "business", url.Values{"business.mcc": {"58"}})
	page, _ := show(t, w.repC, id)
	if strings.Contains(page.Body, `#business.mcc" data-goto-field="business.mcc" data-step-link="business">MCC must be`) {
		t.Error("a refused value reached the checklist: it should not have been saved")
	}
}

// A pricing model's note for admins is never shown to reps: the example models created at
// first start keep their set-up note there, and the rep reads the description alone.
func TestPricingAdminNoteIsNotShownToReps(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if _, err := pricing.SeedExamples(context.Background(), w.env.DB.Gorm); err != nil {
		t.Fatal(err)
	}
	var m models.PricingModel
	if err := w.env.DB.Gorm.Where("name = ?", "Interchange plus").Take(&m).Error; err != nil {
		t.Fatal(err)
	}
	id := create(t, w.repC)
	autosave(t, w.repC, id, "pricing", url.Values{"pricing.model": {m.ID.String()}})
	page := w.repC.Get("/applications/" + id.String() + "?step=pricing").Body
	if !strings.Contains(page, "Suits established merchants with steady volume.") || strings.Contains(page, "first start") {
		t.Errorf("the rep's pricing step: description shown %t, admin note shown %t",
			strings.Contains(page, "Suits established merchants"), strings.Contains(page, "first start"))
	}
	form := w.adminC.Get("/admin/pricing/" + m.ID.String()).Body
	if !strings.Contains(form, ">This example was created at first start: check its code and fees against your upstream contract.</textarea>") {
		t.Error("the admin's form does not show the set-up note")
	}
}
