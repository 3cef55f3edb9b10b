package payments_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/sandbox/payments"
)

// countTransactions counts the account's transactions.
func (e *env) countTransactions(t *testing.T) int {
	t.Helper()
	txns, err := e.area.Transactions(e.acct.OID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(txns)
}

// Idempotency as the big processors do it: the same key and body answer
// the first answer; another body is refused (422); keys are scoped per
// account and kept 24 hours.
func TestIdempotencyKeys(t *testing.T) {
	e := newEnv(t, nil)
	key := uuid.NewString()
	body := data(sale(visa, "10.00"))
	first := mustOK(t, e.put(t, "sale", body, "idempotency-key", key))
	again := mustOK(t, e.put(t, "sale", body, "idempotency-key", key))
	if string(first.Raw) != string(again.Raw) {
		t.Fatalf("a repeat answered differently:\n%s\n%s", first.Raw, again.Raw)
	}
	other := data(sale(visa, "11.00"))
	wantError(t, e.put(t, "sale", other, "idempotency-key", key), http.StatusUnprocessableEntity, "idempotency-key")
	if n := e.countTransactions(t); n != 1 {
		t.Fatalf("%d transactions, want 1", n)
	}
	// Another account may use the same key for its own request.
	otherAcct := e.admin(t, http.MethodPost, "accounts", map[string]any{"name": "Other"})
	oid, _ := otherAcct.Body["oid"].(string)
	tok, _ := otherAcct.Body["token"].(string)
	r := e.call(t, http.MethodPut, "sale", credentials(oid, tok), other, "idempotency-key", key)
	mustOK(t, r)
	// After 24 hours the key is forgotten: the same key with a new request
	// is a new transaction.
	e.clock.Advance(24*time.Hour + time.Second)
	mustOK(t, e.put(t, "sale", other, "idempotency-key", key))
	if n := e.countTransactions(t); n != 2 {
		t.Fatalf("%d transactions, want 2", n)
	}
}

// A repeated externalTransactionId without a key answers the existing
// transaction; reusing it for another operation is refused.
func TestRepeatedExternalID(t *testing.T) {
	e := newEnv(t, nil)
	body := sale(visa, "10.00")
	first := mustOK(t, e.put(t, "sale", data(body)))
	changed := with(body, map[string]any{"amount": "99.00"})
	again := mustOK(t, e.put(t, "sale", data(changed)))
	if again.field(t, "uniqueTransId") != first.field(t, "uniqueTransId") || again.field(t, "amount") != "10.00" {
		t.Fatalf("repeat: %s", again.Raw)
	}
	wantError(t, e.put(t, "authorization", data(body)), http.StatusBadRequest, "externalTransactionId")
	if n := e.countTransactions(t); n != 1 {
		t.Fatalf("%d transactions, want 1", n)
	}
}

// A request still running with the same key gets 409; once it is done,
// the repeat gets the first answer.
func TestIdempotencyStillRunning(t *testing.T) {
	e := newEnv(t, nil)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	payments.SetHook(e.area, func(stage string) {
		if stage == "begun" {
			once.Do(func() {
				close(started)
				<-release
			})
		}
	})
	key := uuid.NewString()
	body := data(sale(visa, "10.00"))
	done := make(chan reply)
	go func() { done <- e.put(t, "sale", body, "idempotency-key", key) }()
	<-started
	wantError(t, e.put(t, "sale", body, "idempotency-key", key), http.StatusConflict, "still being processed")
	close(release)
	first := mustOK(t, <-done)
	again := mustOK(t, e.put(t, "sale", body, "idempotency-key", key))
	if again.field(t, "uniqueTransId") != first.field(t, "uniqueTransId") {
		t.Fatal("the repeat after completion is another transaction")
	}
}

// Concurrent repeats of one payment, with or without the key, make one
// transaction.
func TestConcurrentRepeatsChargeOnce(t *testing.T) {
	e := newEnv(t, nil)
	body := data(sale(visa, "10.00"))
	key := uuid.NewString()
	var wg sync.WaitGroup
	ids := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r reply
			if i%2 == 0 {
				r = e.put(t, "sale", body, "idempotency-key", key)
			} else {
				r = e.put(t, "sale", body)
			}
			if r.Status == http.StatusOK {
				ids <- r.field(t, "uniqueTransId")
			} else if r.Status != http.StatusConflict {
				t.Errorf("%d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 || e.countTransactions(t) != 1 {
		t.Fatalf("%d distinct answers, %d transactions; want 1 and 1", len(seen), e.countTransactions(t))
	}
}

// Each account has its own rate limit, answered 429 with Retry-After.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(o *optionsT) { o.RateLimit, o.RateWindow = 3, 3*time.Second })
	for i := range 3 {
		if r := e.get(t, uuid.NewString()); r.Status != http.StatusNotFound {
			t.Fatalf("request %d: %d", i, r.Status)
		}
	}
	r := e.put(t, "sale", data(sale(visa, "1.00")))
	wantError(t, r, http.StatusTooManyRequests, "rate limit")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	other := e.admin(t, http.MethodPost, "accounts", map[string]any{"name": "Other"})
	oid, _ := other.Body["oid"].(string)
	tok, _ := other.Body["token"].(string)
	mustOK(t, e.call(t, http.MethodPut, "sale", credentials(oid, tok), data(sale(visa, "1.00"))))
	e.wall.Advance(time.Second)
	mustOK(t, e.put(t, "sale", data(sale(visa, "1.00"))))
	if n := e.countTransactions(t); n != 1 {
		t.Fatalf("%d transactions, want 1: the limited request acted", n)
	}
}
