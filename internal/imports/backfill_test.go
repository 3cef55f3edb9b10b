package imports_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Applications stored before the blind index existed, or indexed under a key that is
// no longer active, get their index from the backfill, without a draft's change.
func TestBackfillIndexesExistingApplications(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	owner, _ := env.CreateUser(t, "importing.rep@example.com", models.RoleSalesRep)
	insert := func(tin string, index *string, deleted bool) uuid.UUID {
		t.Helper()
		id := uuid.New()
		d := drafts.Draft{Business: drafts.Business{LegalName: "Old " + tin, TIN: tin}}
		raw, err := env.App.Sealer.SealJSON(id, d)
		if err != nil {
			t.Fatal(err)
		}
		_, err = env.DB.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, legal_name, draft, tin_index, deleted_at)
			VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END)`, id, owner.ID, d.Business.LegalName, string(raw), index, deleted)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	stale := "retired:abc"
	missing := insert("12-3456789", nil, false)
	rotated := insert("98-7654321", &stale, false)
	deleted := insert("45-6789012", nil, true)
	empty := insert("", nil, false)

	n, err := env.App.Imports.Backfill(context.Background())
	if err != nil || n != 4 {
		t.Fatalf("backfill: %d %v", n, err)
	}
	for id, tin := range map[uuid.UUID]string{missing: "123456789", rotated: "987654321", deleted: "456789012", empty: ""} {
		var got string
		if err := env.DB.Pool.QueryRow(context.Background(), `SELECT tin_index FROM applications WHERE id = $1`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tin != "" {
			want = env.App.Sealer.TINIndexes(tin)[0]
		}
		if got != want {
			t.Errorf("%s: index %q, want %q", tin, got, want)
		}
	}
	if n, err := env.App.Imports.Backfill(context.Background()); err != nil || n != 0 {
		t.Errorf("a second backfill wrote %d (%v)", n, err)
	}
}
