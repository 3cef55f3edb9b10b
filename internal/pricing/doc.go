// Package pricing maps the reseller's offers to the pricing codes the upstream
// issued, one code per pricing model. Admins manage the models on /admin/pricing;
// reps only ever choose a model, never type a code.
//
// The application pages use these methods of *Service:
//
//	ListSelectable(ctx) ([]models.PricingModel, error)  // what a rep may choose: active, not archived, by name
//	Get(ctx, id) (*models.PricingModel, error)           // any model, archived too, or models.ErrNotFound
//	IsSelectable(ctx, id) (bool, error)                  // may a rep choose it now? unknown ids are false
//	SnapshotCode(ctx, id) (string, error)                // the code to copy onto an application at submission
//
// A model that is inactive is no longer offered for new choices, but a draft
// that already holds it keeps it and may be submitted with it. An archived model
// is retired: it stays readable on the applications that used it, SnapshotCode
// refuses it (its code may since belong to another model), and restoring it
// brings it back. A submitted application keeps the code it was submitted with
// (applications.submitted_pricing_code), whatever happens to the model later.
//
// Every change to a model is recorded in pricing_model_events (who, when, what,
// the old and new code); the trail outlives the model. A model that any
// application references cannot be deleted, only archived.
//
// DocumentTypes lists the supporting documents a model can require; the
// documents feature and the readiness checklist share it.
package pricing
