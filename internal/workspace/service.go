package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/view"
)

// PricingCatalog is what applications need from pricing models: the models a rep may choose
// now, and any model by id (archived ones included, so an application keeps showing the
// model it uses). *pricing.Service implements it.
type PricingCatalog interface {
	ListSelectable(ctx context.Context) ([]models.PricingModel, error)
	Get(ctx context.Context, id uuid.UUID) (*models.PricingModel, error)
}

// Documents is what the workspace needs of an application's documents: the types
// uploaded so far, for the checklist. *documents.Store implements it.
type Documents interface {
	UploadedTypes(ctx context.Context, appID uuid.UUID) ([]string, error)
}

// Merchants is what the workspace needs of the merchants: the merchant an
// application became, if any. *merchants.Store implements it.
type Merchants interface {
	IDOfApplication(ctx context.Context, appID uuid.UUID) (uuid.UUID, bool, error)
}

// Options are the collaborators of the service besides the store and the sealer.
type Options struct {
	Pricing   PricingCatalog
	Documents Documents
	// DocumentTitles names document types for the checklist ("voided_check" → "Voided check").
	DocumentTitles map[string]string
	// Submissions shows a submitted application's push and hand-off on its page; nil shows none.
	Submissions *submission.Views
	// Merchants finds the merchant a boarded application became, for a link;
	// nil shows none.
	Merchants Merchants
	Now       func() time.Time
	Log       *slog.Logger
}

// Service holds the use cases of the sales rep's workspace: creating and saving drafts,
// deleting and restoring them, reassigning them and revealing personal data, each checked
// against who is asking and recorded in the audit trail.
type Service struct {
	store   *applications.Store
	sealer  *applications.Sealer
	pricing PricingCatalog
	docs    Documents
	titles  map[string]string
	submits *submission.Views
	merch   Merchants
	now     func() time.Time
	log     *slog.Logger
}

// NewService returns the applications service.
func NewService(store *applications.Store, sealer *applications.Sealer, opts Options) *Service {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, sealer: sealer, pricing: opts.Pricing, docs: opts.Documents, titles: opts.DocumentTitles, submits: opts.Submissions, merch: opts.Merchants, now: now, log: log}
}

// StaleError refuses a save made on an outdated copy: the application changed (in another
// tab, or by another person) after the form was rendered. It travels wrapped in an apperr
// conflict, so the error handler answers 409 with its message.
type StaleError struct {
	// Current is the application as it is now.
	Current *models.Application
	// Shown, when set, is the current draft with the refused section's values as typed, for
	// a page that offers to save them again.
	Shown *drafts.Draft
}

// Error describes the refusal for logs; people read the apperr message that wraps it.
func (e *StaleError) Error() string { return "application changed since the form was rendered" }

func staleError(current *models.Application, shown *drafts.Draft) error {
	return apperr.Wrap(apperr.KindConflict, &StaleError{Current: current, Shown: shown}, fmt.Sprintf(
		"Not saved: this application was changed elsewhere (in another tab or by another person) at %s, after this page was loaded. Reload the page to see the current version, then make your change again.",
		view.LocalClock(current.UpdatedAt)))
}

// Create starts an empty application owned by u, with one empty owner ready to fill in.
func (s *Service) Create(ctx context.Context, u *models.User) (*models.Application, error) {
	now := s.now()
	a := &models.Application{ID: uuid.New(), OwnerID: u.ID, Status: models.StatusDraft, Version: 1, CreatedAt: now, UpdatedAt: now}
	var d drafts.Draft
	d.AddOwner(uuid.NewString())
	raw, err := s.sealer.SealJSON(a.ID, d)
	if err != nil {
		return nil, err
	}
	a.Draft, a.TINIndex = raw, s.sealer.TINIndex(d)
	err = s.store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.store.Insert(ctx, tx, a); err != nil {
			return err
		}
		return audit.Record(ctx, tx, event(a.ID, u, audit.ActionCreated, now, nil, audit.Details{}))
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("application created", "application_id", a.ID, "user_id", u.ID)
	return a, nil
}

// Load returns an application u may see, with its draft decrypted.
func (s *Service) Load(ctx context.Context, u *models.User, id uuid.UUID) (*applications.Record, error) {
	a, err := s.store.Visible(ctx, nil, u, id)
	if err != nil {
		return nil, err
	}
	return s.open(a)
}

// FormValues returns the values a form shows for a stored draft (personal data masked) and
// the messages of the rules they no longer meet (an owner's age, a rule added since).
func (s *Service) FormValues(rec *applications.Record) (drafts.Draft, drafts.FieldErrors) {
	return rec.Draft.Masked(nil), s.validate(rec.Draft)
}

func (s *Service) validate(d drafts.Draft) drafts.FieldErrors {
	errs := d.Validate(s.now())
	if errs == nil {
		errs = drafts.FieldErrors{}
	}
	return errs
}

func (s *Service) open(a *models.Application) (*applications.Record, error) {
	d, err := s.sealer.OpenApplication(a)
	if err != nil {
		return nil, err
	}
	return &applications.Record{App: a, Draft: d}, nil
}

// Workspace is what the application page shows beside the form.
type Workspace struct {
	Checklist drafts.Checklist
	Pricing   PricingOptions
	History   []audit.HistoryEntry
	// Owner is the user who owns the application.
	Owner *models.User
	// Assignees are the active users an admin may hand the application to; empty for reps.
	Assignees []models.User
	// Submission is the push and hand-off of a submitted application; nil for a draft never
	// submitted.
	Submission *submission.View
	// MerchantPath is the page of the merchant the application became, once
	// boarded; "" before.
	MerchantPath string
	// Documents names the document types uploaded, for the review step.
	Documents []string
}

// PricingOptions are the pricing choices of an application.
type PricingOptions struct {
	// Selectable are the models a rep may choose now.
	Selectable []models.PricingModel
	// Current is the model the application uses, or nil.
	Current *models.PricingModel
}

// CurrentRetired reports whether the application uses a model that can no longer be chosen;
// the page shows it as a read-only label and asks for a new choice.
func (p PricingOptions) CurrentRetired() bool { return p.Current != nil && !p.Current.Selectable() }

// historyLimit bounds the audit rows shown on the page; autosave can record many.
const historyLimit = 300

// Checklist returns the readiness checklist of an application u may see.
func (s *Service) Checklist(ctx context.Context, u *models.User, id uuid.UUID) (*applications.Record, drafts.Checklist, error) {
	rec, err := s.Load(ctx, u, id)
	if err != nil {
		return nil, drafts.Checklist{}, err
	}
	// The pricing model and the uploaded documents are read at once.
	var (
		uploaded   []string
		uploadsErr error
		read       sync.WaitGroup
	)
	read.Go(func() { uploaded, uploadsErr = s.docs.UploadedTypes(ctx, rec.App.ID) })
	current, err := s.currentPricing(ctx, rec.App)
	read.Wait()
	if err = cmp.Or(err, uploadsErr); err != nil {
		return nil, drafts.Checklist{}, err
	}
	return rec, s.buildChecklist(rec, current, uploaded), nil
}

// History returns the audit trail of an application u may see, newest first.
func (s *Service) History(ctx context.Context, u *models.User, id uuid.UUID) ([]audit.HistoryEntry, error) {
	if _, err := s.store.Visible(ctx, nil, u, id); err != nil {
		return nil, err
	}
	return s.history(ctx, id)
}

func (s *Service) history(ctx context.Context, id uuid.UUID) ([]audit.HistoryEntry, error) {
	return audit.History(ctx, s.store.Querier(), audit.Application(id), historyLimit)
}

// checklist builds the readiness checklist: an archived pricing model counts as not chosen,
// since it cannot be submitted; the documents come from the documents table.
func (s *Service) checklist(ctx context.Context, rec *applications.Record, current *models.PricingModel) (drafts.Checklist, error) {
	uploaded, err := s.docs.UploadedTypes(ctx, rec.App.ID)
	if err != nil {
		return drafts.Checklist{}, err
	}
	return s.buildChecklist(rec, current, uploaded), nil
}

// buildChecklist is checklist with the types of the documents uploaded already read.
func (s *Service) buildChecklist(rec *applications.Record, current *models.PricingModel, uploaded []string) drafts.Checklist {
	opts := drafts.ChecklistOptions{Now: s.now(), DocumentTitles: s.titles, UploadedDocumentTypes: uploaded}
	if current != nil && !current.Archived() {
		opts.PricingModelChosen = true
		opts.RequiredDocumentTypes = current.RequiredDocumentTypes
	}
	return drafts.BuildChecklist(rec.Draft, opts)
}

// PricingOptions returns the pricing choices of an application.
func (s *Service) PricingOptions(ctx context.Context, a *models.Application) (PricingOptions, error) {
	var p PricingOptions
	var err error
	if p.Selectable, err = s.pricing.ListSelectable(ctx); err != nil {
		return p, fmt.Errorf("list pricing models: %w", err)
	}
	p.Current, err = s.currentPricing(ctx, a)
	return p, err
}

// currentPricing loads the model an application uses, or nil.
func (s *Service) currentPricing(ctx context.Context, a *models.Application) (*models.PricingModel, error) {
	if a.PricingModelID == nil {
		return nil, nil
	}
	m, err := s.pricing.Get(ctx, *a.PricingModelID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil // the reference keeps the row alive; this is only belt and braces
	}
	if err != nil {
		return nil, fmt.Errorf("load pricing model: %w", err)
	}
	return m, nil
}

// event builds the audit entry of something u did to application id.
func event(id uuid.UUID, u *models.User, action string, at time.Time, fields []string, d audit.Details) audit.Event {
	return audit.Event{Subject: audit.Application(id), Actor: audit.ActorOf(u), Action: action, Fields: fields, Details: d, At: at}
}
