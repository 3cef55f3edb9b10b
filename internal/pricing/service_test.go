package pricing_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
)

func TestSelectableModelsForTheApplicationForm(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.user(t, "admin")
	zeta := f.create(t, admin, "Zeta plan", "ZETA")
	alpha := f.create(t, admin, "alpha plan", "ALPHA")
	inactive := f.create(t, admin, "Paused plan", "PAUSED")
	in := pricing.Input{Name: inactive.Name, UpstreamCode: "PAUSED", FeeSummary: inactive.FeeSummary, Active: false,
		RequiredDocumentTypes: inactive.RequiredDocumentTypes}
	if _, err := f.service.Update(ctx, admin, inactive.ID, inactive.Version, in); err != nil {
		t.Fatal(err)
	}
	archived := f.create(t, admin, "Old plan", "OLD")
	if _, err := f.service.Archive(ctx, admin, archived.ID); err != nil {
		t.Fatal(err)
	}

	list, err := f.service.ListSelectable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"alpha plan", "Zeta plan"}) {
		t.Fatalf("selectable: %v, want alpha plan and Zeta plan by name", names)
	}

	for _, tt := range []struct {
		id   uuid.UUID
		want bool
	}{{zeta.ID, true}, {alpha.ID, true}, {inactive.ID, false}, {archived.ID, false}, {uuid.New(), false}} {
		got, err := f.service.IsSelectable(ctx, tt.id)
		if err != nil || got != tt.want {
			t.Errorf("IsSelectable(%s) = %v, %v; want %v", tt.id, got, err, tt.want)
		}
	}

	// Archived models stay readable for the applications that use them.
	m, err := f.service.Get(ctx, archived.ID)
	if err != nil || m.Name != "Old plan" || !m.Archived() {
		t.Fatalf("Get archived: %+v, %v", m, err)
	}
	if _, err := f.service.Get(ctx, uuid.New()); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("Get unknown: %v, want ErrNotFound", err)
	}
}

func TestSnapshotCodeFollowsTheModelUntilSubmission(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.user(t, "admin")
	m := f.create(t, admin, "Flat", "FLAT-1")

	code, err := f.service.SnapshotCode(ctx, m.ID)
	if err != nil || code != "FLAT-1" {
		t.Fatalf("SnapshotCode = %q, %v", code, err)
	}
	in := pricing.Input{Name: "Flat", UpstreamCode: "FLAT-2", FeeSummary: m.FeeSummary, Active: false}
	if _, err := f.service.Update(ctx, admin, m.ID, m.Version, in); err != nil {
		t.Fatal(err)
	}
	// An inactive model still gives its (new) code: a draft that chose it may finish.
	if code, err = f.service.SnapshotCode(ctx, m.ID); err != nil || code != "FLAT-2" {
		t.Fatalf("after change: %q, %v", code, err)
	}
	if _, err := f.service.Archive(ctx, admin, m.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.service.SnapshotCode(ctx, m.ID)
	if apperr.KindOf(err) != apperr.KindConflict || apperr.MessageOf(err) == "" {
		t.Fatalf("archived: %v, want a conflict with a message", err)
	}
	if _, err := f.service.SnapshotCode(ctx, uuid.New()); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
}

func TestCodeIsUniqueAmongCurrentModelsEvenWhenAdminsRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.user(t, "admin")
	in := pricing.Input{Name: "Flat", UpstreamCode: "FLAT-1", FeeSummary: "2.9%", Active: true}

	const racers = 4
	var wg sync.WaitGroup
	errs := make([]error, racers)
	for i := range racers {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = f.service.Create(ctx, admin, in) }()
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		fields, invalid := apperr.FieldsOf(err)
		switch {
		case err == nil:
			created++
		case invalid && fields[pricing.FieldUpstreamCode] != "":
		default:
			t.Fatalf("racing create: %v", err)
		}
	}
	if created != 1 || f.countModels(t) != 1 {
		t.Fatalf("%d creates succeeded, %d rows; want exactly 1", created, f.countModels(t))
	}
	var n int64
	f.db.Model(&models.PricingModelEvent{}).Count(&n)
	if n != 1 {
		t.Fatalf("%d audit entries, want 1: a refused create must leave no trace", n)
	}

	// An archived model's code is free again.
	list, _ := f.service.ListSelectable(ctx)
	if _, err := f.service.Archive(ctx, admin, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.service.Create(ctx, admin, in); err != nil {
		t.Fatalf("code of an archived model refused: %v", err)
	}
}

func TestEditingIsAuditedWithOldAndNewCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	alice, bob := f.user(t, "alice"), f.user(t, "bob")
	m := f.create(t, alice, "Flat", "FLAT-1")

	in := pricing.Input{Name: "Flat rate", UpstreamCode: " FLAT-2 ", FeeSummary: m.FeeSummary, Active: true,
		DevicePurchased: true, RequiredDocumentTypes: []string{"voided_check"}}
	m2, err := f.service.Update(ctx, bob, m.ID, m.Version, in)
	if err != nil {
		t.Fatal(err)
	}
	if m2.UpstreamCode != "FLAT-2" || m2.Version != m.Version+1 {
		t.Fatalf("updated: %+v", m2)
	}
	// Saving the same values again records nothing.
	if _, err := f.service.Update(ctx, bob, m.ID, m2.Version, in); err != nil {
		t.Fatal(err)
	}
	// A save from a form opened before bob's change is refused.
	stale := in
	stale.Name = "Alice's name"
	if _, err := f.service.Update(ctx, alice, m.ID, m.Version, stale); !errors.Is(err, pricing.ErrStale) {
		t.Fatalf("stale save: %v, want ErrStale", err)
	}

	events := f.events(t, m.ID)
	if len(events) != 2 {
		t.Fatalf("%d events, want created and updated", len(events))
	}
	created, updated := events[0], events[1]
	if created.Action != pricing.ActionCreated || *created.ActorID != alice.ID || deref(created.NewCode) != "FLAT-1" || created.OldCode != nil {
		t.Errorf("created event: %+v", created)
	}
	if updated.Action != pricing.ActionUpdated || *updated.ActorID != bob.ID ||
		deref(updated.OldCode) != "FLAT-1" || deref(updated.NewCode) != "FLAT-2" || !updated.CreatedAt.Equal(f.now) {
		t.Errorf("updated event: %+v (old %s, new %s)", updated, deref(updated.OldCode), deref(updated.NewCode))
	}
	var details struct{ Fields []string }
	_ = json.Unmarshal(updated.Details, &details)
	if !slices.Equal(details.Fields, []string{"name", "upstream_code", "device_purchased"}) {
		t.Errorf("changed fields: %v", details.Fields)
	}

	history, err := f.service.History(ctx, m.ID)
	if err != nil || len(history) != 2 {
		t.Fatalf("history: %v, %v", history, err)
	}
	if h := history[0]; h.Actor != "bob" || !h.CodeChanged() || h.OldCode != "FLAT-1" || h.NewCode != "FLAT-2" ||
		h.FieldList() != "name, upstream pricing code, device purchased" {
		t.Errorf("newest history entry: %+v", h)
	}
}

func TestArchiveAndRestore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.user(t, "admin")
	old := f.create(t, admin, "Old flat", "FLAT-1")
	if _, err := f.service.Archive(ctx, admin, old.ID); err != nil {
		t.Fatal(err)
	}
	// Archiving twice changes nothing and records nothing more.
	if _, err := f.service.Archive(ctx, admin, old.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.service.Update(ctx, admin, old.ID, old.Version+1, pricing.Input{Name: "x", UpstreamCode: "XX", FeeSummary: "x"}); !errors.Is(err, pricing.ErrArchived) {
		t.Fatalf("edit of archived model: %v, want ErrArchived", err)
	}

	// Another model takes the code meanwhile: restoring is refused, clearly.
	f.create(t, admin, "New flat", "FLAT-1")
	_, err := f.service.Restore(ctx, admin, old.ID)
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("restore onto a taken code: %v, want conflict", err)
	}
	want := "“Old flat” cannot be restored: the current pricing model “New flat” now uses its code FLAT-1. Change that model's code or archive it, then restore this one."
	if got := apperr.MessageOf(err); got != want {
		t.Fatalf("message:\n got %s\nwant %s", got, want)
	}
	if m, _ := f.service.Get(ctx, old.ID); !m.Archived() {
		t.Fatal("refused restore changed the model")
	}

	// Once the code is free again, it restores.
	list, _ := f.service.ListSelectable(ctx)
	if _, err := f.service.Archive(ctx, admin, list[0].ID); err != nil {
		t.Fatal(err)
	}
	m, err := f.service.Restore(ctx, admin, old.ID)
	if err != nil || m.Archived() {
		t.Fatalf("restore: %+v, %v", m, err)
	}
	var actions []string
	for _, e := range f.events(t, old.ID) {
		actions = append(actions, e.Action)
	}
	if !slices.Equal(actions, []string{"created", "archived", "restored"}) {
		t.Fatalf("audit: %v", actions)
	}
}

func TestDeleteOnlyWhenUnused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	admin := f.user(t, "admin")
	used := f.create(t, admin, "Used", "USED")
	f.application(t, admin, used.ID)

	_, err := f.service.Delete(ctx, admin, used.ID)
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("delete of a model in use: %v, want conflict", err)
	}
	if _, err := f.service.Get(ctx, used.ID); err != nil {
		t.Fatalf("model in use is gone: %v", err)
	}

	unused := f.create(t, admin, "Typo", "TYPO")
	if _, err := f.service.Delete(ctx, admin, unused.ID); err != nil {
		t.Fatalf("delete unused: %v", err)
	}
	if _, err := f.service.Get(ctx, unused.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("deleted model still there: %v", err)
	}
	// The history, with the deletion, outlives the model.
	events := f.events(t, unused.ID)
	if len(events) != 2 || events[1].Action != pricing.ActionDeleted || deref(events[1].OldCode) != "TYPO" {
		t.Fatalf("audit after delete: %+v", events)
	}
}

func TestSeedExamplesOnlyIntoAnEmptyTable(t *testing.T) {
	t.Parallel()
	t.Run("empty table gets the examples once", func(t *testing.T) {
		f := newFixture(t)
		ctx := context.Background()
		n, err := pricing.SeedExamples(ctx, f.db)
		if err != nil || n != 2 {
			t.Fatalf("first seed: %d, %v", n, err)
		}
		if n, err = pricing.SeedExamples(ctx, f.db); err != nil || n != 0 {
			t.Fatalf("second seed: %d, %v", n, err)
		}
		list, _ := f.service.ListSelectable(ctx)
		if len(list) != 2 || list[0].UpstreamCode != "FLAT-TERM-295" || !list[0].DevicePurchased ||
			!slices.Equal(list[0].RequiredDocumentTypes, []string{"voided_check", "processing_statement", "photo_id"}) ||
			list[1].UpstreamCode != "IC-PLUS-STD" || list[1].DevicePurchased ||
			!slices.Equal(list[1].RequiredDocumentTypes, []string{"voided_check", "photo_id"}) {
			t.Fatalf("examples: %+v", list)
		}
	})
	t.Run("an admin's archived model is enough to skip", func(t *testing.T) {
		f := newFixture(t)
		ctx := context.Background()
		admin := f.user(t, "admin")
		m := f.create(t, admin, "Mine", "MINE")
		if _, err := f.service.Archive(ctx, admin, m.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := pricing.SeedExamples(ctx, f.db); err != nil || n != 0 {
			t.Fatalf("seed: %d, %v", n, err)
		}
		if f.countModels(t) != 1 {
			t.Fatal("seed added models beside an admin's")
		}
	})
	t.Run("instances starting together seed once", func(t *testing.T) {
		f := newFixture(t)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := pricing.SeedExamples(context.Background(), f.db); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n := f.countModels(t); n != 2 {
			t.Fatalf("%d models after concurrent seeds, want 2", n)
		}
	})
}
