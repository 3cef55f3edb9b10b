package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/keys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// rotationApplications is the size BENCHMARKS.md states the rotation's speed at.
const rotationApplications = 100_000

// BenchmarkKeyRotation measures `portal keys` at 100,000 applications: every draft (TIN, an
// owner's SSN, the account number), a quarter of them submitted (the sealed snapshot and
// the hand-off link), and every TIN's blind index.
//
//   - rotate: re-seals all of them under the other key of a two-key ring, each run the
//     other way; one op is one whole `portal keys rotate` of the database (nothing else
//     holds sealed values here), reported also as applications re-sealed per second.
//   - status: counts what is sealed under each key (`portal keys status`, and the start-up
//     check's one full look when a key has left the ring).
func BenchmarkKeyRotation(b *testing.B) {
	ctx := context.Background()
	k1, k2 := "k1:"+newKey(), "k2:"+newKey()
	env := apptest.New(b, apptest.WithoutWorkers(), apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", k1+","+k2),
		apptest.WithEnv("PORTAL_ENCRYPTION_ACTIVE_KEY", "k1"))
	seedSealedApplications(b, env, rotationApplications)
	service := func(active string) *keys.Service {
		ring, err := fieldcrypt.ParseKeyRing(active, k1+","+k2)
		if err != nil {
			b.Fatal(err)
		}
		return keys.New(keys.Deps{Pool: env.DB.Pool, Ring: ring, Columns: app.SealedColumns()})
	}
	rotators := map[bool]*keys.Service{false: service("k2"), true: service("k1")}
	runs := 0
	b.Run("rotate", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			done, err := rotators[runs%2 == 1].Rotate(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			runs++
			if len(done) == 0 || done[0].Place != "applications" || done[0].Done != rotationApplications {
				b.Fatalf("re-sealed %+v, want %d applications", done, rotationApplications)
			}
		}
		b.ReportMetric(float64(b.N*rotationApplications)/time.Since(start).Seconds(), "applications/s")
	})
	b.Run("status", func(b *testing.B) {
		for range b.N {
			tallies, err := rotators[false].Count(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if n := keys.Totals(tallies)["k1"] + keys.Totals(tallies)["k2"]; n < 4*rotationApplications {
				b.Fatalf("counted %d sealed values", n)
			}
		}
	})
}

// seedSealedApplications stores n applications sealed under the ring's active key, with
// COPY, then analyzes the table as autovacuum would.
func seedSealedApplications(b *testing.B, env *apptest.Env, n int) {
	b.Helper()
	ctx := context.Background()
	rep, _ := env.CreateUser(b, "bench.rep@example.com", models.RoleSalesRep)
	sealer := env.App.Sealer
	ring, err := fieldcrypt.ParseKeyRing(env.Config.EncryptionActiveKey, env.Config.EncryptionKeys)
	if err != nil {
		b.Fatal(err)
	}
	base := draftstest.Complete(drafts.EntityLLC)
	now := time.Now().UTC()
	columns := []string{"id", "owner_id", "status", "legal_name", "dba", "contact_name", "contact_email", "draft", "version",
		"created_at", "updated_at", "tin_index", "handoff_link", "submitted_snapshot", "submitted_at", "upstream_application_id"}
	rows := make([][]any, 0, n)
	for i := range n {
		id := uuid.New()
		d := base.Clone()
		d.Owners[0].ID = uuid.NewString()
		d.Business.LegalName = fmt.Sprintf("Bench Shop %d LLC", i)
		d.Business.TIN = fmt.Sprintf("%02d-%07d", 10+i%89, i%9_999_999)
		d.Owners[0].SSN = fmt.Sprintf("%03d-%02d-%04d", 100+i%800, 10+i%89, i%9999)
		d.Bank.AccountNumber = fmt.Sprintf("%012d", 7_000_000_000+i)
		sealed, err := sealer.SealJSON(id, d)
		if err != nil {
			b.Fatal(err)
		}
		row := []any{id, rep.ID, string(models.StatusDraft), d.Business.LegalName, d.Business.DBA, "Jordan Lee", "jordan@example.com",
			string(sealed), 1, now, now, *sealer.TINIndex(d), nil, nil, nil, nil}
		if i%4 == 0 {
			row[2], row[14], row[15] = string(models.StatusLinked), now, "up-"+id.String()
			row[12], row[13] = sealedLinkAndSnapshot(b, ring, id, d)
		}
		rows = append(rows, row)
	}
	if _, err := env.DB.Pool.CopyFrom(ctx, pgx.Identifier{"applications"}, columns, pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	if _, err := env.DB.Pool.Exec(ctx, `VACUUM ANALYZE applications`); err != nil {
		b.Fatal(err)
	}
}

// sealedLinkAndSnapshot seals a submitted application's hand-off link and snapshot as the
// push stores them.
func sealedLinkAndSnapshot(b *testing.B, ring *fieldcrypt.KeyRing, id uuid.UUID, d drafts.Draft) (string, string) {
	b.Helper()
	link, err := ring.Encrypt("https://upstream.example/merchant/"+strings.Repeat("x", 40)+id.String(), "application:"+id.String()+":handoff_link")
	if err != nil {
		b.Fatal(err)
	}
	data := upstream.ApplicationData{
		LegalEntity: &upstream.LegalEntity{Name: d.Business.LegalName, TIN: d.Business.TIN},
		Banking:     &upstream.Banking{DepositAccount: d.Bank.AccountNumber},
		Owners:      []upstream.Owner{{FirstName: d.Owners[0].FirstName, LastName: d.Owners[0].LastName, SSN: d.Owners[0].SSN}},
	}
	snap, err := applications.NewSealer(ring).SealSnapshot(id, data)
	if err != nil {
		b.Fatal(err)
	}
	return link, string(snap)
}
