package reminders_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/reminders"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

const webhookToken = "reminders-webhook-token"

// day is one day of the injected clock.
const day = 24 * time.Hour

func newEnv(t *testing.T) *apptest.Env {
	t.Helper()
	return apptest.New(t, apptest.WithoutWorkers(), apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken))
}

func rep(t *testing.T, env *apptest.Env, name string) *models.User {
	t.Helper()
	u, _ := env.CreateUser(t, name+"-"+uuid.NewString()[:6]+"@example.com", models.RoleSalesRep)
	return u
}

// linked inserts an application handed off to its merchant at the clock's now, as the
// push leaves it: a sealed submitted snapshot with the merchant's contact, the link, a
// tracking token and an upstream id.
func linked(t *testing.T, env *apptest.Env, owner *models.User, dba string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	snap, err := env.App.Sealer.SealSnapshot(id, upstream.ApplicationData{
		Business: &upstream.Business{DBA: dba},
		Contact:  &upstream.Contact{Name: "Dana Merchant", Email: "dana@" + strings.ToLower(strings.ReplaceAll(dba, " ", "")) + ".example"},
	})
	if err != nil {
		t.Fatal(err)
	}
	now := env.Clock.Now()
	_, err = env.DB.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, status, dba, legal_name, submitted_snapshot,
			upstream_application_id, handoff_link, linked_at, submitted_at, created_at, updated_at)
		VALUES ($1, $2, 'linked', $3, $3, $4, $5, 'https://sandbox.test/apply/x', $6, $6, $6, $6)`,
		id, owner.ID, dba, string(snap), "UP-"+id.String()[:8], now)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// draft inserts a draft last changed at the clock's now.
func draft(t *testing.T, env *apptest.Env, owner *models.User, dba string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	now := env.Clock.Now()
	_, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, status, dba, legal_name, created_at, updated_at)
		VALUES ($1, $2, 'draft', $3, $3, $4, $4)`, id, owner.ID, dba, now)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// status announces an upstream state through the real webhook, dated at the clock's now.
func status(t *testing.T, env *apptest.Env, id uuid.UUID, state string) {
	t.Helper()
	var upID string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT upstream_application_id FROM applications WHERE id = $1`, id).Scan(&upID); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": upID, "status": state, "created": env.Clock.Now().UnixMilli(), "token": webhookToken})
	res := env.Client(t).Do(http.MethodPost, "/webhooks/upstream", strings.NewReader(string(b)), http.Header{"Content-Type": {"application/json"}})
	if res.Status != http.StatusNoContent {
		t.Fatalf("webhook %s: %d %s", state, res.Status, res.Body)
	}
}

// run runs the reminders job once and fails the test on an error or a failed reminder.
func run(t *testing.T, env *apptest.Env) reminders.Report {
	t.Helper()
	rep, err := env.App.Reminders.Run(context.Background())
	if err != nil {
		t.Fatalf("run reminders: %v", err)
	}
	if rep.Failed != 0 {
		t.Fatalf("%d reminders failed", rep.Failed)
	}
	return rep
}

type sentMail struct {
	ID                      uuid.UUID
	Kind, To, Subject, Text string
	ApplicationID           *uuid.UUID
}

// outbox lists the messages of a kind, oldest first.
func outbox(t *testing.T, env *apptest.Env, kind string) []sentMail {
	t.Helper()
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT id, kind, to_address, subject, text_body, application_id FROM mail_outbox
		WHERE kind = $1 ORDER BY created_at, id`, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []sentMail
	for rows.Next() {
		var m sentMail
		if err := rows.Scan(&m.ID, &m.Kind, &m.To, &m.Subject, &m.Text, &m.ApplicationID); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func count(t *testing.T, env *apptest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// reminderCount counts the reminders of a kind about an application.
func reminderCount(t *testing.T, env *apptest.Env, id uuid.UUID, kind reminders.Kind) int {
	t.Helper()
	return count(t, env, `SELECT count(*) FROM reminders_sent WHERE application_id = $1 AND kind = $2`, id, string(kind))
}

func exec(t *testing.T, env *apptest.Env, sql string, args ...any) {
	t.Helper()
	if _, err := env.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}
