package partnerapi

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// guardWithKey is a guard on a fresh database holding one API key.
func guardWithKey(t *testing.T, now *time.Time) (*Guard, uuid.UUID) {
	t.Helper()
	db := testdb.New(t)
	ring, err := fieldcrypt.NewKeyRing("k1", map[string][]byte{"k1": make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin, key := uuid.New(), uuid.New()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO users (id, email, role, password_hash) VALUES ($1, 'a@example.com', 'admin', 'x')`, admin); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(key.String()))
	if _, err := db.Pool.Exec(ctx, `INSERT INTO api_keys (id, name, prefix, secret_sha256, scope, access, created_by, created_at)
		VALUES ($1, 'k', 'ppk_test', $2, 'reseller', 'write', $3, now())`, key, sum[:], admin); err != nil {
		t.Fatal(err)
	}
	return NewGuard(db.Pool, ring, 10, func() time.Time { return *now }), key
}

// The records of an idempotency key across its life: claimed, in flight for a retry,
// answered, refused to another body, taken over after its process died, and gone
// after a day.
func TestIdempotencyRecords(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	g, key := guardWithKey(t, &now)
	ctx := context.Background()
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	claim := func(hash [32]byte) claimOutcome {
		t.Helper()
		o, _, err := g.claim(ctx, key, "k-1", hash[:])
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := claim(a); o != claimed {
		t.Fatalf("first: %v", o)
	}
	if o := claim(a); o != inFlight {
		t.Fatalf("while in flight: %v", o)
	}
	if o := claim(b); o != mismatch {
		t.Fatalf("another body in flight: %v", o)
	}
	// The first request's process died: after the lease a retry takes over.
	now = now.Add(idempotencyLease)
	if o := claim(a); o != claimed {
		t.Fatalf("after the lease: %v", o)
	}
	if err := g.finish(ctx, key, "k-1", a[:], storedReply{Status: 201, Headers: map[string]string{"Location": "/x"}, Body: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	o, r, err := g.claim(ctx, key, "k-1", a[:])
	if err != nil || o != replay || r.Status != 201 || string(r.Body) != `{"ok":true}` || r.Headers["Location"] != "/x" {
		t.Fatalf("replay: %v %+v %v", o, r, err)
	}
	if o := claim(b); o != mismatch {
		t.Fatalf("another body: %v", o)
	}
	// A failure on our side forgets the claim, so a retry runs again.
	if o, _, _ := g.claim(ctx, key, "k-2", a[:]); o != claimed {
		t.Fatal("k-2")
	}
	if err := g.forget(ctx, key, "k-2", a[:]); err != nil {
		t.Fatal(err)
	}
	if o, _, _ := g.claim(ctx, key, "k-2", a[:]); o != claimed {
		t.Fatal("k-2 after a failure")
	}
	// After 24 hours the key is free again, and pruning removes the old records.
	now = now.Add(idempotencyTTL)
	if o := claim(b); o != claimed {
		t.Fatalf("a day later: %v", o)
	}
	now = now.Add(idempotencyTTL)
	if n, err := g.Prune(ctx); err != nil || n != 2 {
		t.Fatalf("pruned %d (%v)", n, err)
	}
}
