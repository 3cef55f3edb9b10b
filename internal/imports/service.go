package imports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
)

// PricingModels is what the import needs of pricing models: those a rep may choose, to
// find the one a row names. *pricing.Service implements it.
type PricingModels interface {
	ListSelectable(ctx context.Context) ([]models.PricingModel, error)
}

// Deps are the collaborators of the import.
type Deps struct {
	Apps   *applications.Store
	Sealer *applications.Sealer
	// Ring seals the rows of a file as they are parsed.
	Ring    *fieldcrypt.KeyRing
	Pricing PricingModels
	Queue   *jobs.Queue
	Now     func() time.Time
	Log     *slog.Logger
}

// Service holds the use cases of the import.
type Service struct{ d Deps }

// NewService returns the import's service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// FieldOwner is the upload form's choice of owner.
const FieldOwner = "owner_id"

// ErrExpired refuses a batch past its lifetime.
var ErrExpired = apperr.New(apperr.KindNotFound, "This import has expired: uploaded files are kept, sealed, for an hour. Upload the file again.")

// chunk is how many rows are read, checked or imported at a time.
const chunk = 500

// Owners lists the users u may import drafts for: a rep only themself, an admin any
// active user.
func (s *Service) Owners(ctx context.Context, u *models.User) ([]models.User, error) {
	if !u.IsAdmin() {
		return []models.User{*u}, nil
	}
	users, err := s.d.Apps.Users(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []models.User
	for _, o := range users {
		if o.Active && (o.Role == models.RoleSalesRep || o.Role == models.RoleAdmin) {
			out = append(out, o)
		}
	}
	return out, nil
}

// owner checks the owner chosen for an upload.
func (s *Service) owner(ctx context.Context, u *models.User, raw string) (uuid.UUID, error) {
	if raw == "" {
		return u.ID, nil
	}
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, apperr.Invalid(FieldOwner, "Choose the rep the drafts are for from the list.")
	}
	if !u.IsAdmin() {
		if id != u.ID {
			return uuid.Nil, apperr.Invalid(FieldOwner, "You can import drafts for yourself only.")
		}
		return id, nil
	}
	owners, err := s.Owners(ctx, u)
	if err != nil {
		return uuid.Nil, err
	}
	for _, o := range owners {
		if o.ID == id {
			return id, nil
		}
	}
	return uuid.Nil, apperr.Invalid(FieldOwner, "Choose the rep the drafts are for from the list.")
}

// Upload reads a CSV file as it arrives, seals each row as soon as it is parsed, and
// stores the batch; when its header names a field in every column (the template's, or
// labels the portal recognises), every row is checked at once and the batch is ready to
// preview, else the user says which column holds what first. Nothing of a refused file is kept.
func (s *Service) Upload(ctx context.Context, u *models.User, ownerID, fileName string, file io.Reader) (*Batch, error) {
	owner, err := s.owner(ctx, u, ownerID)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	b := &Batch{ID: uuid.New(), CreatedBy: u.ID, OwnerID: owner, FileName: cleanName(fileName), Status: StatusMapping,
		OnDuplicate: DuplicateSkip, CreatedAt: now, ExpiresAt: now.Add(Lifetime)}
	err = s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		r, err := newCSVReader(file)
		if err != nil {
			return err
		}
		b.Headers = r.headers
		b.Mapping = GuessMapping(b.Headers)
		if err := insertBatch(ctx, tx, b); err != nil {
			return err
		}
		if b.RowCount, err = s.storeRows(ctx, tx, b.ID, r); err != nil {
			return err
		}
		if b.RowCount == 0 {
			return fileError("The file has a header but no rows.")
		}
		if !slices.Contains(b.Mapping, "") && len(checkMapping(b.Headers, b.Mapping)) == 0 {
			b.Status = StatusPreview // every column recognised: nothing to ask
		}
		if err := updateBatch(ctx, tx, b); err != nil {
			return err
		}
		if b.Status == StatusPreview {
			return s.check(ctx, tx, u, b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.d.Log.Info("import uploaded", "batch_id", b.ID, "user_id", u.ID, "rows", b.RowCount, "status", b.Status)
	return b, nil
}

// storeRows copies the file's rows into import_rows as they are parsed, each sealed.
func (s *Service) storeRows(ctx context.Context, tx pgx.Tx, batch uuid.UUID, r *csvReader) (int, error) {
	n := 0
	var readErr error
	src := pgx.CopyFromFunc(func() ([]any, error) {
		number, cells, err := r.next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			readErr = err
			return nil, err
		}
		sealed, err := sealCells(s.d.Ring, batch, number, cells)
		if err != nil {
			return nil, err
		}
		n++
		return []any{batch, number, sealed}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_rows"}, []string{"batch_id", "row_number", "cells"}, src); err != nil {
		if readErr != nil {
			return 0, readErr // the file's fault, worded for people
		}
		return 0, fmt.Errorf("store import rows: %w", err)
	}
	return n, nil
}

// cleanName keeps the base of an uploaded file's name, for people to recognise it.
func cleanName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "." || name == "/" || name == "" {
		name = "upload.csv"
	}
	if len(name) > 200 {
		name = name[:200]
	}
	return strings.ToValidUTF8(name, "")
}

// Batch loads a batch u uploaded; others' batches do not exist for u.
func (s *Service) Batch(ctx context.Context, u *models.User, id uuid.UUID) (*Batch, error) {
	return s.batch(ctx, s.d.Apps.Querier(), u, id, false)
}

func (s *Service) batch(ctx context.Context, q database.Querier, u *models.User, id uuid.UUID, forUpdate bool) (*Batch, error) {
	b, err := getBatch(ctx, q, id, forUpdate)
	if err != nil {
		return nil, err
	}
	if b.CreatedBy != u.ID {
		return nil, models.ErrNotFound
	}
	if b.Status != StatusImporting && !s.d.Now().Before(b.ExpiresAt) {
		return nil, ErrExpired
	}
	return b, nil
}

// Recent lists u's batches that have not expired, newest first.
func (s *Service) Recent(ctx context.Context, u *models.User) ([]Batch, error) {
	return recentBatches(ctx, s.d.Apps.Querier(), u.ID, s.d.Now())
}

// SaveMapping stores which field each column fills and checks every row again. A
// mapping without one choice per column of the file is refused (400), after the batch
// is found to be u's.
func (s *Service) SaveMapping(ctx context.Context, u *models.User, id uuid.UUID, mapping []string) error {
	return s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		b, err := s.batch(ctx, tx, u, id, true)
		if err != nil {
			return err
		}
		if b.Status != StatusMapping && b.Status != StatusPreview {
			return errStarted
		}
		if len(mapping) != len(b.Headers) {
			return errMappingShape(len(b.Headers))
		}
		if errs := checkMapping(b.Headers, mapping); len(errs) > 0 {
			return apperr.FieldErrors(errs).Err()
		}
		b.Mapping, b.Status = mapping, StatusPreview
		if err := updateBatch(ctx, tx, b); err != nil {
			return err
		}
		return s.check(ctx, tx, u, b)
	})
}

var errStarted = apperr.New(apperr.KindConflict, "This import has started; its columns and rows can no longer change.")

// errMappingShape refuses a mapping form that does not carry one choice per column of
// the file: it did not come from the batch's page, or the page is out of date. The
// request cannot be read as a mapping (400); no field of the page is at fault.
func errMappingShape(columns int) error {
	return apperr.New(apperr.KindMalformed, "This column mapping does not match the file's %d columns: the form is out of date or incomplete. Reload the page and choose a field, or none, for every column.", columns)
}

// scope is whose applications u may see, for duplicates: nil for all.
func scope(u *models.User) *uuid.UUID {
	if u.IsAdmin() {
		return nil
	}
	id := u.ID
	return &id
}

// pricingByName maps the names (lower case) of the models reps may choose to their ids.
func (s *Service) pricingByName(ctx context.Context) (map[string]uuid.UUID, error) {
	list, err := s.d.Pricing.ListSelectable(ctx)
	if err != nil {
		return nil, fmt.Errorf("list pricing models: %w", err)
	}
	out := make(map[string]uuid.UUID, len(list))
	for _, m := range list {
		out[strings.ToLower(strings.TrimSpace(m.Name))] = m.ID
	}
	return out, nil
}

// rowCheck is what the preview says of a row.
type rowCheck struct {
	Number      int
	Status      string
	Errors      []RowError
	DuplicateOf *uuid.UUID
}

// check checks every row of b by the mapping, a chunk at a time, inside tx.
func (s *Service) check(ctx context.Context, tx pgx.Tx, u *models.User, b *Batch) error {
	pricing, err := s.pricingByName(ctx)
	if err != nil {
		return err
	}
	now := s.d.Now()
	seen := newSameFile()
	for after := 0; ; {
		rows, err := rowsAfter(ctx, tx, b.ID, after, chunk, "", false)
		if err != nil {
			return err
		}
		cands, err := s.candidates(b, rows, pricing, seen, now)
		if err != nil {
			return err
		}
		dups, err := findExisting(ctx, tx, s.d.Sealer, scope(u), withoutErrors(cands))
		if err != nil {
			return err
		}
		if err := saveChecks(ctx, tx, b.ID, rowChecks(cands, dups)); err != nil {
			return err
		}
		if len(rows) < chunk {
			return nil
		}
		after = rows[len(rows)-1].Number
	}
}

// candidates builds the rows' applications by the mapping; a row that is
// fine alone but repeats an earlier merchant of the file gets an error.
func (s *Service) candidates(b *Batch, rows []storedRow, pricing map[string]uuid.UUID, seen *sameFile, now time.Time) ([]candidate, error) {
	cands := make([]candidate, 0, len(rows))
	for _, r := range rows {
		cells, err := openCells(s.d.Ring, b.ID, r.Number, r.Cells)
		if err != nil {
			return nil, err
		}
		c := build(r.Number, cells, b.Headers, b.Mapping, pricing, now)
		if len(c.Errors) == 0 {
			if first := seen.earlier(c); first != 0 {
				c.Errors = append(c.Errors, RowError{Message: fmt.Sprintf("The same merchant as row %d of this file (same TIN or legal name).", first)})
			}
		}
		cands = append(cands, c)
	}
	return cands, nil
}

// withoutErrors keeps the candidates that have no error.
func withoutErrors(cands []candidate) []candidate {
	var clean []candidate
	for _, c := range cands {
		if len(c.Errors) == 0 {
			clean = append(clean, c)
		}
	}
	return clean
}

// rowChecks says of each row whether it is invalid, the duplicate of a
// merchant already in the portal, or valid.
func rowChecks(cands []candidate, dups map[int]*existing) []rowCheck {
	checks := make([]rowCheck, len(cands))
	for i, c := range cands {
		checks[i] = rowCheck{Number: c.Number, Status: checkValid, Errors: c.Errors}
		switch {
		case len(c.Errors) > 0:
			checks[i].Status = checkInvalid
		case dups[c.Number] != nil:
			checks[i].Status, checks[i].DuplicateOf = checkDuplicate, &dups[c.Number].ID
		}
	}
	return checks
}
