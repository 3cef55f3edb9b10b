package pricing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
)

// exampleModels are the pricing models a fresh portal starts with, so that reps
// can fill an application at once. Their codes and fees are placeholders that
// an admin replaces with the ones from the upstream contract.
func exampleModels() []Input {
	// The note is for admins; reps read the description beside the model.
	const note = "This example was created at first start: check its code and fees against your upstream contract."
	return []Input{
		{
			Name:                  "Interchange plus",
			Description:           "The card networks' interchange passed through at cost, plus a fixed markup. Suits established merchants with steady volume.",
			AdminNote:             note,
			UpstreamCode:          "IC-PLUS-STD",
			FeeSummary:            "Interchange + 0.30% + $0.10 per transaction; no monthly fee",
			RequiredDocumentTypes: []string{"voided_check", "photo_id"},
			Active:                true,
		},
		{
			Name:                  "Flat rate with terminal",
			Description:           "One flat rate on every card transaction, with a countertop terminal the merchant buys.",
			AdminNote:             note,
			UpstreamCode:          "FLAT-TERM-295",
			DevicePurchased:       true,
			FeeSummary:            "2.95% per transaction; terminal bought at sign-up",
			RequiredDocumentTypes: []string{"voided_check", "photo_id", "processing_statement"},
			Active:                true,
		},
	}
}

// SeedExamples inserts the example pricing models when the pricing_models
// table is completely empty, archived models included, so it never touches an
// admin's models. It returns how many models it inserted.
func SeedExamples(ctx context.Context, db *gorm.DB) (int, error) {
	inserted := 0
	err := NewStore(db).inTx(ctx, func(tx *Store) error {
		// Instances starting together must not both find the table empty; this
		// lock mode excludes itself and every insert until commit.
		if err := tx.db.Exec("LOCK TABLE pricing_models IN SHARE ROW EXCLUSIVE MODE").Error; err != nil {
			return fmt.Errorf("lock pricing models: %w", err)
		}
		n, err := tx.Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		now := time.Now()
		for _, in := range exampleModels() {
			in = in.normalized()
			m := &models.PricingModel{ID: uuid.New(), Version: 1, CreatedAt: now, UpdatedAt: now}
			in.apply(m)
			if err := tx.Create(ctx, m); err != nil {
				return fmt.Errorf("seed pricing model %q: %w", m.Name, err)
			}
			e := newEvent(m.ID, nil, ActionCreated, now).withNewCode(m.UpstreamCode).seeded()
			if err := tx.AddEvent(ctx, e.record()); err != nil {
				return err
			}
			inserted++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return inserted, nil
}
