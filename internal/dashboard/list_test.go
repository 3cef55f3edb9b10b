package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// listFixture is a database with two reps, an admin and a known set of applications.
type listFixture struct {
	svc               *Service
	store             *applications.Store
	db                *gorm.DB
	rep, other, admin *models.User
	apps              map[string]*models.Application // by DBA
}

var base = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

func newListFixture(t *testing.T) *listFixture {
	t.Helper()
	db := testdb.New(t)
	appStore := applications.NewStore(db.Pool)
	f := &listFixture{svc: NewService(db.Pool, appStore), store: appStore, db: db.Gorm, apps: map[string]*models.Application{}}
	for _, u := range []**models.User{&f.rep, &f.other, &f.admin} {
		*u = &models.User{ID: uuid.New(), Role: models.RoleSalesRep, PasswordHash: "x", Active: true, SessionVersion: 1}
	}
	f.rep.Email, f.rep.Name = "rep@example.com", "Rita Rep"
	f.other.Email = "other@example.com"
	f.admin.Email, f.admin.Role = "admin@example.com", models.RoleAdmin
	for _, u := range []*models.User{f.rep, f.other, f.admin} {
		if err := db.Gorm.Create(u).Error; err != nil {
			t.Fatal(err)
		}
	}
	rows := []struct {
		dba, legal, contact, email string
		owner                      *models.User
		status                     models.ApplicationStatus
		createdDay, updatedDay     int
	}{
		{"Blue Fern", "Blue Fern Coffee LLC", "Jane Doe", "jane@bluefern.example", f.rep, models.StatusDraft, 0, 10},
		{"", "Acme Hardware Inc", "Al Acme", "al@acme.example", f.rep, models.StatusNeedsAttention, 1, 3},
		{"Zephyr Bikes", "Zephyr Cycles LLC", "Zoe Z", "zoe@zephyr.example", f.other, models.StatusDraft, 2, 2},
		{"100% Juice", "Pure Juice Co", "Pat Pure", "pat@juice.example", f.other, models.StatusLinked, 3, 8},
		{"blue bottle", "Bottle Works", "Bo", "bo@bottle.example", f.rep, models.StatusSubmitting, 4, 4},
		{"Deleted Diner", "Diner LLC", "Dee", "dee@diner.example", f.rep, models.StatusDraft, 5, 5},
		{"Mid Market", "Mid Market Ltd", "Mo", "mo@mid.example", f.other, models.StatusDraft, 6, 6},
	}
	for _, r := range rows {
		a := &models.Application{
			ID: uuid.New(), OwnerID: r.owner.ID, Status: r.status, DBA: r.dba, LegalName: r.legal, ContactName: r.contact,
			ContactEmail: r.email, Draft: models.JSON("{}"), Version: 1,
			CreatedAt: base.AddDate(0, 0, r.createdDay), UpdatedAt: base.AddDate(0, 0, r.updatedDay),
		}
		if err := f.store.Insert(context.Background(), nil, a); err != nil {
			t.Fatal(err)
		}
		f.apps[r.legal] = a
	}
	if err := f.store.SoftDelete(context.Background(), nil, f.apps["Diner LLC"].ID, f.admin.ID, base); err != nil {
		t.Fatal(err)
	}
	return f
}

// legalNames lists a page by legal name, in order.
func legalNames(p *ListPage) []string {
	var out []string
	for _, r := range p.Rows {
		out = append(out, r.LegalName)
	}
	return out
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	day := func(n int) time.Time { return base.AddDate(0, 0, n).Truncate(24 * time.Hour) }
	tests := []struct {
		name string
		user *models.User
		q    ListQuery
		want []string // in the default order: most recently updated first
	}{
		{"rep sees own only", f.rep, ListQuery{}, []string{"Blue Fern Coffee LLC", "Bottle Works", "Acme Hardware Inc"}},
		{"rep cannot ask for another owner", f.rep, ListQuery{OwnerID: f.other.ID}, []string{"Blue Fern Coffee LLC", "Bottle Works", "Acme Hardware Inc"}},
		{"rep cannot list deleted", f.rep, ListQuery{Deleted: true}, []string{"Blue Fern Coffee LLC", "Bottle Works", "Acme Hardware Inc"}},
		{"admin sees all", f.admin, ListQuery{}, []string{"Blue Fern Coffee LLC", "Pure Juice Co", "Mid Market Ltd", "Bottle Works", "Acme Hardware Inc", "Zephyr Cycles LLC"}},
		{"owner", f.admin, ListQuery{OwnerID: f.other.ID}, []string{"Pure Juice Co", "Mid Market Ltd", "Zephyr Cycles LLC"}},
		{"search DBA, any case", f.admin, ListQuery{Search: "BLUE"}, []string{"Blue Fern Coffee LLC", "Bottle Works"}},
		{"search legal name", f.admin, ListQuery{Search: "hardware"}, []string{"Acme Hardware Inc"}},
		{"search contact name", f.admin, ListQuery{Search: "zoe z"}, []string{"Zephyr Cycles LLC"}},
		{"search contact e-mail", f.admin, ListQuery{Search: "@juice."}, []string{"Pure Juice Co"}},
		{"search is literal", f.admin, ListQuery{Search: "100%"}, []string{"Pure Juice Co"}},
		{"search underscore is literal", f.admin, ListQuery{Search: "blue_fern"}, nil},
		{"status", f.admin, ListQuery{Status: models.StatusDraft}, []string{"Blue Fern Coffee LLC", "Mid Market Ltd", "Zephyr Cycles LLC"}},
		{"status and owner", f.admin, ListQuery{Status: models.StatusDraft, OwnerID: f.rep.ID}, []string{"Blue Fern Coffee LLC"}},
		{"updated from", f.admin, ListQuery{From: day(6)}, []string{"Blue Fern Coffee LLC", "Pure Juice Co", "Mid Market Ltd"}},
		{"updated range, both days included", f.admin, ListQuery{From: day(3), To: day(6)}, []string{"Mid Market Ltd", "Bottle Works", "Acme Hardware Inc"}},
		{"created range", f.admin, ListQuery{DateField: DateCreated, From: day(1), To: day(3)}, []string{"Pure Juice Co", "Acme Hardware Inc", "Zephyr Cycles LLC"}},
		{"deleted", f.admin, ListQuery{Deleted: true}, []string{"Diner LLC"}},
		{"deleted and searched", f.admin, ListQuery{Deleted: true, Search: "fern"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.svc.List(context.Background(), tt.user, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := legalNames(page); !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if page.Total != len(tt.want) || page.Capped {
				t.Errorf("total %d (capped %v), want %d", page.Total, page.Capped, len(tt.want))
			}
		})
	}
}

func TestListSortOrders(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	tests := []struct {
		sort    string
		reverse bool
		want    []string
	}{
		{SortUpdated, false, []string{"Blue Fern Coffee LLC", "Pure Juice Co", "Mid Market Ltd", "Bottle Works", "Acme Hardware Inc", "Zephyr Cycles LLC"}},
		{SortUpdated, true, []string{"Zephyr Cycles LLC", "Acme Hardware Inc", "Bottle Works", "Mid Market Ltd", "Pure Juice Co", "Blue Fern Coffee LLC"}},
		{SortCreated, false, []string{"Mid Market Ltd", "Bottle Works", "Pure Juice Co", "Zephyr Cycles LLC", "Acme Hardware Inc", "Blue Fern Coffee LLC"}},
		{SortCreated, true, []string{"Blue Fern Coffee LLC", "Acme Hardware Inc", "Zephyr Cycles LLC", "Pure Juice Co", "Bottle Works", "Mid Market Ltd"}},
		// By DBA, or the legal name without one, ignoring case: "100% Juice", "Acme Hardware
		// Inc", "Blue Fern", "blue bottle" sorts as "blue bottle"...
		{SortName, false, []string{"Pure Juice Co", "Acme Hardware Inc", "Bottle Works", "Blue Fern Coffee LLC", "Mid Market Ltd", "Zephyr Cycles LLC"}},
		{SortName, true, []string{"Zephyr Cycles LLC", "Mid Market Ltd", "Blue Fern Coffee LLC", "Bottle Works", "Acme Hardware Inc", "Pure Juice Co"}},
		// By status name, then most recently updated.
		{SortStatus, false, []string{"Blue Fern Coffee LLC", "Mid Market Ltd", "Zephyr Cycles LLC", "Pure Juice Co", "Acme Hardware Inc", "Bottle Works"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s reverse=%v", tt.sort, tt.reverse), func(t *testing.T) {
			page, err := f.svc.List(context.Background(), f.admin, ListQuery{Sort: tt.sort, Reverse: tt.reverse})
			if err != nil {
				t.Fatal(err)
			}
			if got := legalNames(page); !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			// Paging two at a time, forwards then backwards, gives the same order.
			var forward []string
			q := ListQuery{Sort: tt.sort, Reverse: tt.reverse, Limit: 2}
			var last *ListPage
			for i := 0; i < 10; i++ {
				p, err := f.svc.List(context.Background(), f.admin, q)
				if err != nil {
					t.Fatal(err)
				}
				forward = append(forward, legalNames(p)...)
				last = p
				if p.Next == uuid.Nil {
					break
				}
				q.After, q.Before = p.Next, uuid.Nil
			}
			if !slices.Equal(forward, tt.want) {
				t.Errorf("paging forwards: %q", forward)
			}
			backward := legalNames(last)
			q = ListQuery{Sort: tt.sort, Reverse: tt.reverse, Limit: 2, Before: last.Prev}
			for i := 0; i < 10 && q.Before != uuid.Nil; i++ {
				p, err := f.svc.List(context.Background(), f.admin, q)
				if err != nil {
					t.Fatal(err)
				}
				backward = append(legalNames(p), backward...)
				if p.Next == uuid.Nil {
					t.Error("a page reached backwards has no Next")
				}
				q.Before = p.Prev
			}
			if !slices.Equal(backward, tt.want) {
				t.Errorf("paging backwards: %q", backward)
			}
		})
	}
}

func TestListCountIsCapped(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	err := f.db.Exec(`INSERT INTO applications (id, owner_id, dba, draft)
		SELECT gen_random_uuid(), ?, 'Bulk ' || n, '{}' FROM generate_series(1, ?) AS n`, f.other.ID, countCap).Error
	if err != nil {
		t.Fatal(err)
	}
	page, err := f.svc.List(context.Background(), f.admin, ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != countCap || !page.Capped || len(page.Rows) != DefaultPageSize || page.Next == uuid.Nil || page.Prev != uuid.Nil {
		t.Errorf("total %d capped %v rows %d next %v prev %v", page.Total, page.Capped, len(page.Rows), page.Next, page.Prev)
	}
	page, err = f.svc.List(context.Background(), f.admin, ListQuery{Search: "bulk 1"})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 111 || page.Capped { // 1, 10 to 19 and 100 to 199: the words starting "1"
		t.Errorf("search: total %d capped %v", page.Total, page.Capped)
	}
	for _, r := range page.Rows {
		if !strings.HasPrefix(r.DBA, "Bulk 1") {
			t.Errorf("search matched %q", r.DBA)
		}
	}
}

func TestListPagesThroughManyRowsInEveryOrder(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	// 1,500 rows: more than the count cap, so pages are read along the indexes; created and
	// updated times repeat, so the id must break ties.
	err := f.db.Exec(`INSERT INTO applications (id, owner_id, dba, legal_name, status, draft, created_at, updated_at)
		SELECT gen_random_uuid(), ?, CASE WHEN n % 3 = 0 THEN '' ELSE 'Shop ' || (n % 40) END, 'Legal ' || n,
			(ARRAY['draft','linked','needs_attention'])[1 + n % 3], '{}',
			timestamptz '2025-01-01' + (n / 10) * interval '1 day', timestamptz '2025-06-01' + (n / 7) * interval '1 hour'
		FROM generate_series(1, 1500) AS n`, f.other.ID).Error
	if err != nil {
		t.Fatal(err)
	}
	expect := func(orderBy, where string) []uuid.UUID {
		var ids []uuid.UUID
		if err := f.db.Raw(`SELECT id FROM applications a WHERE deleted_at IS NULL ` + where + ` ORDER BY ` + orderBy).Scan(&ids).Error; err != nil {
			t.Fatal(err)
		}
		return ids
	}
	// The range holds more rows than the count cap: the second count decides.
	from, to := time.Date(2025, 1, 5, 0, 0, 0, 0, time.UTC), time.Date(2025, 5, 31, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		q       ListQuery
		orderBy string
		where   string
	}{
		{"updated", ListQuery{}, "updated_at DESC, id", ""},
		{"oldest", ListQuery{Sort: SortCreated, Reverse: true}, "created_at, id DESC", ""},
		{"name", ListQuery{Sort: SortName}, "sort_name, id", ""},
		{"name reversed", ListQuery{Sort: SortName, Reverse: true}, "sort_name DESC, id DESC", ""},
		{"status", ListQuery{Sort: SortStatus}, "status, updated_at DESC, id", ""},
		{"created range, updated order", ListQuery{DateField: DateCreated, From: from, To: to}, "updated_at DESC, id",
			"AND created_at >= '2025-01-05' AND created_at < '2025-06-01'"},
		// More matches than the count cap: the first pages come from the matches collected in
		// order, the later ones from the order's index.
		{"status filter", ListQuery{Status: models.StatusLinked}, "updated_at DESC, id", "AND status = 'linked'"},
		{"search, by name", ListQuery{Search: "shop", Sort: SortName}, "sort_name, id", "AND dba LIKE 'Shop %'"},
		{"search, oldest", ListQuery{Search: "shop", Sort: SortCreated, Reverse: true}, "created_at, id DESC", "AND dba LIKE 'Shop %'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := expect(tt.orderBy, tt.where)
			q := tt.q
			q.Limit = 100
			var got []uuid.UUID
			var last *ListPage
			for range 30 {
				p, err := f.svc.List(context.Background(), f.admin, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Rows {
					got = append(got, r.ID)
				}
				last = p
				if p.Next == uuid.Nil {
					break
				}
				q.After = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("paged %d rows, want %d in the same order", len(got), len(want))
			}
			// And back from the last page to the first.
			var back []uuid.UUID
			for _, r := range last.Rows {
				back = append(back, r.ID)
			}
			q.After = uuid.Nil
			for q.Before = last.Prev; q.Before != uuid.Nil; q.Before = last.Prev {
				if last, err = f.svc.List(context.Background(), f.admin, q); err != nil {
					t.Fatal(err)
				}
				ids := make([]uuid.UUID, 0, len(last.Rows)+len(back))
				for _, r := range last.Rows {
					ids = append(ids, r.ID)
				}
				back = append(ids, back...)
			}
			if !slices.Equal(back, want) {
				t.Errorf("paged back %d rows, want %d in the same order", len(back), len(want))
			}
		})
	}
}

// The warm-up of new connections plans real statements of the list.
func TestWarmConnectionPlansTheListStatements(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	conn, err := db.Pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if err := WarmConnection(context.Background(), conn.Conn()); err != nil {
		t.Fatal(err)
	}
}

// Searches and date ranges are planned for their own values every time; other lists keep
// prepared statements; only lists without a narrowing filter read count and page at once.
func TestListPlansByQuery(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		q          ListQuery
		perValues  bool
		unfiltered bool
	}{
		{ListQuery{}, false, true},
		{ListQuery{OwnerID: uuid.New(), Sort: SortName, After: uuid.New()}, false, true},
		{ListQuery{Deleted: true}, false, true},
		{ListQuery{Status: "draft"}, false, false},
		{ListQuery{Search: "fe"}, true, false},
		{ListQuery{From: day}, true, false},
		{ListQuery{To: day, DateField: DateCreated}, true, false},
	}
	for _, tt := range tests {
		if got := tt.q.execMode() == pgx.QueryExecModeExec; got != tt.perValues {
			t.Errorf("%+v: planned per values %v, want %v", tt.q, got, tt.perValues)
		}
		if got := tt.q.unfiltered(); got != tt.unfiltered {
			t.Errorf("%+v: unfiltered %v, want %v", tt.q, got, tt.unfiltered)
		}
	}
}
