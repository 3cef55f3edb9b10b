package dashboard

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
)

// The dashboard's sort orders and date filters.
const (
	SortUpdated = "updated" // most recently changed first
	SortCreated = "created" // newest first
	SortName    = "name"    // by DBA (or legal name without one), A to Z
	SortStatus  = "status"  // by status, then most recently changed

	DateUpdated = "updated"
	DateCreated = "created"
)

// DefaultPageSize is how many applications a dashboard page lists.
const DefaultPageSize = 25

// countCap bounds the count of matching applications: counting is the one part of a list
// that grows with the table, so beyond this the page says "250+" instead. A count reads
// each match it counts (a search, the row of each), so the cap is what a search costs at
// most for its count: 250 keeps it about the cost of a page, and says as much as a larger
// number would to someone who will narrow the search anyway.
const countCap = 250

// ListQuery is what the dashboard asks for. Zero values mean "any".
type ListQuery struct {
	// Search matches applications with a word starting with each word of it in the DBA,
	// legal name, contact name or contact e-mail, a business or contact phone number
	// (whole, or without the country or area code), or the application's own or the
	// processor's id, whole (see searchCondition).
	Search string
	// Status narrows the list to one of the portal's own statuses; Outcome
	// to one outcome of the state table (states.Outcomes), as the list
	// shows it.
	Status  models.ApplicationStatus
	Outcome string
	// OwnerID limits the list to one owner; the service forces it to the rep for reps.
	OwnerID uuid.UUID
	// DateField says which date From and To bound: DateUpdated or DateCreated.
	DateField string
	// From and To are calendar days (UTC), both included.
	From, To time.Time
	// Sort is one of the Sort* constants; Reverse flips its direction.
	Sort    string
	Reverse bool
	// After and Before are keyset cursors: the id of the last row of the previous page, or of
	// the first row of the next one.
	After, Before uuid.UUID
	// Deleted lists the soft-deleted applications instead (admins only).
	Deleted bool
	Limit   int
}

// ListRow is one application on the dashboard.
type ListRow struct {
	ID           uuid.UUID
	DBA          string
	LegalName    string
	ContactName  string
	ContactEmail string
	Status       models.ApplicationStatus
	OwnerID      uuid.UUID
	OwnerName    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	DeletedAt    *time.Time
	// UpstreamStatus is the processor's state (from its webhooks); OpenedAt when the merchant
	// first opened the e-mailed link.
	UpstreamStatus *string
	OpenedAt       *time.Time
}

// Name is what the merchant trades under: the DBA, else the legal name.
func (r ListRow) Name() string {
	if r.DBA != "" {
		return r.DBA
	}
	return r.LegalName
}

// ListPage is one page of the dashboard.
type ListPage struct {
	Rows []ListRow
	// Total counts the matching applications up to countCap; Capped says there are more.
	Total  int
	Capped bool
	// Next and Prev are the cursors of the neighbouring pages, uuid.Nil when there is none.
	Next, Prev uuid.UUID
}

// sortCol is one column of an ORDER BY; expr is a format with %[1]s for the table alias.
type sortCol struct {
	expr string
	desc bool
}

// nameExpr is the sort key of SortName: a generated column holding the DBA, or the legal
// name without one, in lower case.
const nameExpr = "%[1]s.sort_name"

// sortOrders end with the id, so that every order is total and a keyset cursor is exact.
// Their directions match the indexes, read forwards or backwards.
var sortOrders = map[string][]sortCol{
	SortUpdated: {{"%[1]s.updated_at", true}, {"%[1]s.id", false}},
	SortCreated: {{"%[1]s.created_at", true}, {"%[1]s.id", false}},
	SortName:    {{nameExpr, false}, {"%[1]s.id", false}},
	SortStatus:  {{"%[1]s.status", false}, {"%[1]s.updated_at", true}, {"%[1]s.id", false}},
}

// IsSort reports whether s names a sort order.
func IsSort(s string) bool { _, ok := sortOrders[s]; return ok }

// Service lists the applications a user may see.
type Service struct {
	store *Store
	apps  *applications.Store
}

// NewService returns the dashboard's service: the list query reads pool, the owner
// choices come from the applications store.
func NewService(pool *pgxpool.Pool, apps *applications.Store) *Service {
	return &Service{store: &Store{pool: pool}, apps: apps}
}

// List returns one page of the applications u may see. Reps see only their own, and never
// deleted ones.
func (s *Service) List(ctx context.Context, u *models.User, q ListQuery) (*ListPage, error) {
	if !u.IsAdmin() {
		q.OwnerID = u.ID
		q.Deleted = false
	}
	return s.store.List(ctx, q)
}

// OwnerChoices lists the users an admin can filter the dashboard by; reps get none.
func (s *Service) OwnerChoices(ctx context.Context, u *models.User) ([]models.User, error) {
	if !u.IsAdmin() {
		return nil, nil
	}
	return s.apps.Users(ctx, nil)
}
