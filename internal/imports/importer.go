package imports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
)

// FieldOnDuplicate is the preview's choice of what to do with duplicates.
const FieldOnDuplicate = "on_duplicate"

// Start imports the valid rows of a previewed batch (and its duplicates, skipped or
// updated as chosen) by a background job: the batch moves to importing and the job is
// enqueued in one transaction.
func (s *Service) Start(ctx context.Context, u *models.User, id uuid.UUID, onDuplicate string) error {
	choice := OnDuplicate(onDuplicate)
	if choice != DuplicateSkip && choice != DuplicateUpdate {
		return apperr.Invalid(FieldOnDuplicate, "Choose whether to skip or update the merchants already in the portal.")
	}
	return s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		b, err := s.batch(ctx, tx, u, id, true)
		if err != nil {
			return err
		}
		if b.Status != StatusPreview {
			return errStarted
		}
		now := s.d.Now().UTC()
		b.Status, b.OnDuplicate, b.ImportStartedAt = StatusImporting, choice, &now
		if err := updateBatch(ctx, tx, b); err != nil {
			return err
		}
		_, err = s.d.Queue.InsertTx(ctx, tx, ImportArgs{BatchID: b.ID}, importInsertOpts())
		return err
	})
}

// ImportArgs is the job that imports a batch.
type ImportArgs struct {
	BatchID uuid.UUID `json:"batch_id"`
}

// Kind names the job in River.
func (ImportArgs) Kind() string { return "imports_import" }

// importInsertOpts puts an import on the housekeeping queue (it is neither a push nor
// an e-mail), once per batch.
func importInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: jobs.QueueDefault, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ImportWorker imports a batch, a chunk of rows per transaction: each row's draft, its
// audit entry and its outcome commit together, so a retry (after a crash or a failure)
// continues with the rows not done and never imports one twice.
type ImportWorker struct {
	river.WorkerDefaults[ImportArgs]
	svc *Service
}

// NewImportWorker returns the import job's worker.
func NewImportWorker(svc *Service) *ImportWorker { return &ImportWorker{svc: svc} }

// Timeout lets a large import run past the default job timeout.
func (*ImportWorker) Timeout(*river.Job[ImportArgs]) time.Duration { return 30 * time.Minute }

// Work imports the batch.
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[ImportArgs]) error {
	return w.svc.Import(ctx, job.Args.BatchID)
}

// importChunk is how many rows one transaction of the import takes.
const importChunk = 200

// Import imports the rows of a batch that are not done yet; the import job runs it.
func (s *Service) Import(ctx context.Context, id uuid.UUID) error {
	b, err := getBatch(ctx, s.d.Apps.Querier(), id, false)
	if errors.Is(err, models.ErrNotFound) {
		return nil // purged
	}
	if err != nil {
		return err
	}
	if b.Status != StatusImporting {
		return nil
	}
	creator, err := s.d.Apps.User(ctx, nil, b.CreatedBy)
	if err != nil {
		return err
	}
	pricing, err := s.pricingByName(ctx)
	if err != nil {
		return err
	}
	for {
		n, err := s.importChunk(ctx, b, creator, pricing)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	now := s.d.Now().UTC()
	b.Status, b.ImportFinishedAt = StatusDone, &now
	if err := updateBatch(ctx, s.d.Apps.Querier(), b); err != nil {
		return err
	}
	s.d.Log.Info("import finished", "batch_id", b.ID)
	return nil
}

// importChunk imports up to importChunk rows in one transaction and says how many.
// New drafts, their audit entries and the rows' outcomes are written in bulk.
func (s *Service) importChunk(ctx context.Context, b *Batch, creator *models.User, pricing map[string]uuid.UUID) (int, error) {
	var n int
	err := s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		rows, err := rowsAfter(ctx, tx, b.ID, 0, importChunk, `outcome IS NULL AND check_status IN ('valid', 'duplicate')`, true)
		if err != nil || len(rows) == 0 {
			return err
		}
		now := s.d.Now().UTC()
		cells := make([][]string, len(rows))
		found := make([]candidate, len(rows))
		for i, r := range rows {
			if cells[i], err = openCells(s.d.Ring, b.ID, r.Number, r.Cells); err != nil {
				return err
			}
			found[i] = keys(r.Number, cells[i], b.Mapping)
		}
		// Two imports of one file at once (or another import of the same merchant)
		// must not both create it: the duplicates are looked up again under a lock of
		// each merchant's keys, taken in one order so that two imports never deadlock.
		if err := lockKeys(ctx, tx, found); err != nil {
			return err
		}
		dups, err := findExisting(ctx, tx, s.d.Sealer, scope(creator), found)
		if err != nil {
			return err
		}
		w := &chunkWrites{}
		for i, r := range rows {
			dup := dups[r.Number]
			if dup != nil && b.OnDuplicate == DuplicateSkip {
				w.outcome(r.Number, outcomeSkipped, "Already in the portal: "+dup.Name+".", &dup.ID, nil)
				continue
			}
			c := build(r.Number, cells[i], b.Headers, b.Mapping, pricing, now)
			if err := s.importRow(ctx, tx, b, creator, c, dup, now, w); err != nil {
				return err
			}
		}
		if err := s.d.Apps.InsertMany(ctx, tx, w.apps); err != nil {
			return err
		}
		if err := audit.RecordMany(ctx, tx, w.events); err != nil {
			return err
		}
		if err := saveOutcomes(ctx, tx, b.ID, w.outcomes); err != nil {
			return err
		}
		n = len(rows)
		return nil
	})
	return n, err
}

// chunkWrites gathers what a chunk of the import writes in bulk.
type chunkWrites struct {
	apps     []*models.Application
	events   []audit.Event
	outcomes []rowOutcome
}

func (w *chunkWrites) outcome(number int, outcome, note string, app *uuid.UUID, errs []RowError) {
	w.outcomes = append(w.outcomes, rowOutcome{Number: number, Outcome: outcome, Note: note, AppID: app, Errors: errs})
}

// lockKeys takes a transaction-scoped advisory lock on each row's TIN and legal name.
func lockKeys(ctx context.Context, tx pgx.Tx, cands []candidate) error {
	set := map[string]bool{}
	for _, c := range cands {
		if c.TIN != "" {
			set["tin:"+c.TIN] = true
		}
		if c.NameKey != "" {
			set["name:"+c.NameKey] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return nil
	}
	// The keys are hashed to 64 bits by PostgreSQL; they never leave the database.
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('portal-import:' || k, 0)) FROM unnest($1::text[]) AS k ORDER BY k`, keys)
	if err != nil {
		return fmt.Errorf("lock import keys: %w", err)
	}
	return nil
}

// importRow creates a row's draft, or skips or updates the merchant it duplicates.
func (s *Service) importRow(ctx context.Context, tx pgx.Tx, b *Batch, creator *models.User, c candidate, dup *existing, now time.Time, w *chunkWrites) error {
	switch {
	case len(c.Errors) > 0:
		// A pricing model retired since the preview, or a birthday that changed the
		// owner's age: the row is refused with the reason, never half-imported.
		w.outcome(c.Number, outcomeRefused, "", nil, c.Errors)
	case dup == nil:
		a := &models.Application{ID: uuid.New(), OwnerID: b.OwnerID, Status: models.StatusDraft, Version: 1,
			PricingModelID: c.Pricing, CreatedAt: now, UpdatedAt: now}
		d := c.Draft
		d.Normalize()
		if err := s.fill(a, d); err != nil {
			return err
		}
		w.apps = append(w.apps, a)
		w.events = append(w.events, audit.Event{Subject: audit.Application(a.ID), Actor: &creator.ID, Action: audit.ActionCreated,
			Details: audit.Details{Batch: b.ID.String(), Row: c.Number}, At: now})
		w.outcome(c.Number, outcomeCreated, "", &a.ID, nil)
	case b.OnDuplicate == DuplicateUpdate:
		return s.update(ctx, tx, b, creator, c, dup.ID, now, w)
	default:
		w.outcome(c.Number, outcomeSkipped, "Already in the portal: "+dup.Name+".", &dup.ID, nil)
	}
	return nil
}

// fill seals a draft into its application row with the searchable copies and the TIN's
// blind index, as the workspace does on every save.
func (s *Service) fill(a *models.Application, d drafts.Draft) error {
	raw, err := s.d.Sealer.SealJSON(a.ID, d)
	if err != nil {
		return err
	}
	a.Draft, a.TINIndex = raw, s.d.Sealer.TINIndex(d)
	a.LegalName, a.DBA = d.Business.LegalName, d.Business.DBA
	a.ContactName, a.ContactEmail = d.Contact.Name, d.Contact.Email
	return nil
}

// update writes the fields a row fills into the merchant's existing draft, if it may
// still change and the result passes the form's rules on those fields.
func (s *Service) update(ctx context.Context, tx pgx.Tx, b *Batch, creator *models.User, c candidate, id uuid.UUID, now time.Time, w *chunkWrites) error {
	a, err := s.d.Apps.Get(ctx, tx, id)
	if err != nil {
		return err
	}
	name := cmp.Or(a.DBA, a.LegalName)
	if applications.CheckEditable(a) != nil {
		w.outcome(c.Number, outcomeRefused, "Already in the portal and submitted ("+name+"), so it was not changed.", &a.ID, nil)
		return nil
	}
	stored, err := s.d.Sealer.OpenApplication(a)
	if err != nil {
		return err
	}
	merged, provided := mergeRow(stored, c)
	if errs := rowErrors(b, merged, provided, now); len(errs) > 0 {
		w.outcome(c.Number, outcomeRefused, "Not changed: the values would not pass the form's rules with what "+name+" already holds.", &a.ID, errs)
		return nil
	}
	merged.Normalize()
	changed := drafts.ChangedFields(stored, merged)
	pricingID := a.PricingModelID
	if c.Pricing != nil && (pricingID == nil || *pricingID != *c.Pricing) {
		pricingID = c.Pricing
		changed = append(changed, drafts.FieldPricingModel)
	}
	if len(changed) == 0 {
		w.outcome(c.Number, outcomeUnchanged, "Already in the portal with these values: "+name+".", &a.ID, nil)
		return nil
	}
	if err := s.fill(a, merged); err != nil {
		return err
	}
	a.PricingModelID = pricingID
	if err := s.d.Apps.UpdateDraft(ctx, tx, a, now); errors.Is(err, applications.ErrNoMatch) {
		w.outcome(c.Number, outcomeRefused, "Not changed: someone changed "+name+" at the same moment; import the row again.", &a.ID, nil)
		return nil
	} else if err != nil {
		return err
	}
	w.events = append(w.events, audit.Event{Subject: audit.Application(a.ID), Actor: &creator.ID, Action: audit.ActionImported,
		Fields: changed, Details: audit.Details{Batch: b.ID.String(), Row: c.Number}, At: now})
	w.outcome(c.Number, outcomeUpdated, "Updated "+name+".", &a.ID, nil)
	return nil
}

// mergeRow lays the fields the row fills (but the pricing model, which is
// no field of the draft) over the stored draft, and says which they were.
func mergeRow(stored drafts.Draft, c candidate) (drafts.Draft, map[string]bool) {
	merged := stored.Clone()
	provided := map[string]bool{}
	for _, field := range c.Provided {
		if field == FieldPricing {
			continue
		}
		v, _ := c.Draft.Get(field)
		_ = merged.Set(field, v) // field comes from the mapping, which names real fields
		provided[field] = true
	}
	merged.EnsureOwnerIDs(uuid.NewString)
	return merged, provided
}

// rowErrors are the form's problems with the merged draft on the fields the
// row filled; those the draft already had are not the row's to report.
func rowErrors(b *Batch, merged drafts.Draft, provided map[string]bool, now time.Time) []RowError {
	var errs []RowError
	for _, fe := range drafts.Sorted(merged.Validate(now)) {
		if provided[fe.Field] {
			errs = append(errs, RowError{Field: fe.Field, Column: columnHeader(b, fe.Field), Message: fe.Message})
		}
	}
	return errs
}

// columnHeader is the header of the column that fills field, or "".
func columnHeader(b *Batch, field string) string {
	for i, f := range b.Mapping {
		if f == field {
			return b.Headers[i]
		}
	}
	return ""
}
