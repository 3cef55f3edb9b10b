package payments_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/upstream/payments"
)

// methods lists the method of each request the sandbox received.
func (e *env) methods() []string {
	var out []string
	for _, r := range e.bodies.all() {
		out = append(out, r.Method)
	}
	return out
}

// sameBodies checks that every PUT carried the very same body: one
// payment is never sent as two different requests.
func (e *env) sameBodies(t *testing.T) {
	t.Helper()
	var first []byte
	for _, r := range e.bodies.all() {
		if r.Method != http.MethodPut {
			continue
		}
		if first == nil {
			first = r.Body
		} else if !bytes.Equal(first, r.Body) {
			t.Fatalf("a repeat sent another body:\n%s\n%s", first, r.Body)
		}
	}
}

func (e *env) sale(t *testing.T, c *payments.Client) (*payments.Transaction, error) {
	t.Helper()
	return c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, visaNumber), Amount: "10.00"})
}

// "Act, then drop": the sandbox charges and never answers; the client
// reads the transaction back and returns it. Exactly one transaction.
func TestActThenDropResolvedByReadBack(t *testing.T) {
	e := newEnv(t, nil)
	e.faults.FailNext("payments", -1)
	tr, err := e.sale(t, e.client(t, nil))
	if err != nil || !tr.Approved() {
		t.Fatalf("%+v %v", tr, err)
	}
	if got := e.methods(); len(got) != 2 || got[0] != "PUT" || got[1] != "GET" {
		t.Fatalf("requests %v, want PUT then GET", got)
	}
	if n := e.count(t); n != 1 {
		t.Fatalf("%d transactions, want 1", n)
	}
}

// A drop before acting, a 5xx or a 409: read back, find nothing, send the
// very same request again. Exactly one transaction.
func TestLostAnswerResent(t *testing.T) {
	for name, code := range map[string]int{"drop": 0, "502": http.StatusBadGateway, "504": http.StatusGatewayTimeout,
		"500": http.StatusInternalServerError, "409": http.StatusConflict} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.faults.FailNext("payments", code)
			tr, err := e.sale(t, e.client(t, nil))
			if err != nil || !tr.Approved() {
				t.Fatalf("%+v %v", tr, err)
			}
			if got := e.methods(); len(got) != 3 || got[0] != "PUT" || got[1] != "GET" || got[2] != "PUT" {
				t.Fatalf("requests %v, want PUT GET PUT", got)
			}
			e.sameBodies(t)
			if n := e.count(t); n != 1 {
				t.Fatalf("%d transactions, want 1", n)
			}
		})
	}
}

// 429 means not done: wait as Retry-After says and send again, without a
// read-back.
func TestRateLimitedHonoursRetryAfter(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.faults.Set(kit.Faults{RetryAfter: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	e.faults.FailNext("payments", http.StatusTooManyRequests)
	tr, err := e.sale(t, e.client(t, nil))
	if err != nil || !tr.Approved() {
		t.Fatalf("%+v %v", tr, err)
	}
	if got := e.methods(); len(got) != 2 || got[1] != "PUT" {
		t.Fatalf("requests %v, want PUT PUT", got)
	}
	if w := e.waits.All(); len(w) != 1 || w[0] != 2*time.Second {
		t.Fatalf("waits %v, want [2s]", w)
	}
	// A read-back honours it as well.
	e.faults.FailNext("payments", http.StatusTooManyRequests)
	if _, err := e.client(t, nil).Get(context.Background(), e.acct, tr.ExternalTransactionID); err != nil {
		t.Fatal(err)
	}
	if w := e.waits.All(); len(w) != 2 || w[1] != 2*time.Second {
		t.Fatalf("waits %v", w)
	}
}

// The processor-timeout card never answers: after its attempts the client
// reports an unknown outcome (the portal keeps reading back), having sent
// one request body only.
func TestProcessorTimeoutIsUnknown(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	_, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, "4000000000000119"), Amount: "10.00"})
	var ue *payments.UnknownOutcomeError
	if !errors.Is(err, payments.ErrUnknownOutcome) || !errors.As(err, &ue) || !payments.IsTemporary(err) {
		t.Fatalf("want an unknown outcome, got %v", err)
	}
	if got := e.methods(); len(got) != 8 {
		t.Fatalf("requests %v, want 4 × (PUT, GET)", got)
	}
	e.sameBodies(t)
	if n := e.count(t); n != 0 {
		t.Fatalf("%d transactions, want none", n)
	}
}

// When even the read-back fails, the outcome is unknown; a later Get
// resolves it, and finds the one transaction.
func TestUnknownOutcomeResolvedLater(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	e.faults.FailNext("payments", -1, 503, 502, 500, 504)
	ref := newRef()
	_, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: ref, Card: card(t, visaNumber), Amount: "10.00"})
	if !errors.Is(err, payments.ErrUnknownOutcome) {
		t.Fatalf("want an unknown outcome, got %v", err)
	}
	if got := e.methods(); len(got) != 5 {
		t.Fatalf("requests %v, want one PUT and four read-backs", got)
	}
	tr, err := c.Get(context.Background(), e.acct, ref.ExternalTransactionID)
	if err != nil || !tr.Approved() || e.count(t) != 1 {
		t.Fatalf("later read-back: %+v %v, %d transactions", tr, err, e.count(t))
	}
}

// Under random drops, errors and act-then-drops, no payment is ever
// charged twice, and every payment the client reports is the one
// upstream.
func TestNeverTwiceUnderFaults(t *testing.T) {
	e := newEnv(t, func(o *sandboxOptions) { o.RateLimit = -1 })
	if err := e.faults.Set(kit.Faults{ErrorRate: 0.15, DropRate: 0.15, ActThenDropRate: 0.2}); err != nil {
		t.Fatal(err)
	}
	c := e.client(t, func(cfg *payments.Config) { cfg.MaxAttempts = 8 })
	reported := 0
	var refs []payments.Ref
	for range 30 {
		ref := newRef()
		refs = append(refs, ref)
		tr, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: ref, Card: card(t, visaNumber), Amount: "10.00"})
		switch {
		case err == nil && tr.ExternalTransactionID == ref.ExternalTransactionID:
			reported++
		case errors.Is(err, payments.ErrUnknownOutcome), payments.IsTemporary(err):
		default:
			t.Fatalf("sale: %+v %v", tr, err)
		}
	}
	if err := e.faults.Set(kit.Faults{}); err != nil {
		t.Fatal(err)
	}
	txns, err := e.area.Transactions(e.acct.OID, 0)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, x := range txns {
		per[x.ExternalID]++
	}
	for _, ref := range refs {
		if per[ref.ExternalTransactionID] > 1 {
			t.Fatalf("payment %s charged %d times", ref.ExternalTransactionID, per[ref.ExternalTransactionID])
		}
	}
	if len(txns) < reported || reported == 0 {
		t.Fatalf("%d transactions upstream, %d reported", len(txns), reported)
	}
}
