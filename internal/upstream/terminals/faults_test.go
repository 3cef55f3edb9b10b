package terminals_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payportal/portal/internal/upstream/terminals"
)

func TestLaunchIsNeverRepeatedBlindly(t *testing.T) {
	tests := []struct {
		name     string
		fail     int // kit.Injector.FailNext code: 0 drops, -1 acts then drops
		unknown  bool
		launched bool // the sandbox ran it
		requests int
	}{
		{"answer lost after the launch", -1, true, true, 1},
		{"connection dropped", 0, true, false, 1},
		{"500", http.StatusInternalServerError, true, false, 1},
		{"502", http.StatusBadGateway, true, false, 1},
		{"504", http.StatusGatewayTimeout, true, false, 1},
		{"503 is not launched", http.StatusServiceUnavailable, false, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.faults.FailNext("terminals", tc.fail)
			before := e.requests()
			// Driven, so that a retry would show as a second request rather
			// than a wait on the clock.
			done := make(chan struct{})
			var err error
			go func() {
				defer close(done)
				_, err = e.client.Launch(context.Background(), e.loc, "EMULATOR", terminals.Sale(1000, "INV-3.1", "Ann"))
			}()
			e.drive(done, time.Second)
			if err == nil || errors.Is(err, terminals.ErrOutcomeUnknown) != tc.unknown {
				t.Fatalf("err = %v, want unknown outcome %v", err, tc.unknown)
			}
			if n := e.requests() - before; n != tc.requests {
				t.Errorf("requests = %d, want %d: a launch is not repeated", n, tc.requests)
			}
			var txs []sandboxTx
			e.admin(t, http.MethodGet, "/transactions", nil, &txs)
			if (len(txs) == 1) != tc.launched {
				t.Errorf("sandbox transactions = %d, launched %v", len(txs), tc.launched)
			}
			if !tc.launched {
				return
			}
			// The user confirms a resend of the same request: once the
			// device is free, duplicate detection answers with the lost
			// launch's approval and charges nothing more.
			e.clock.Advance(3 * time.Second)
			r := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-3.1", "Ann"))
			lost := e.transaction(t, txs[0].ID)
			if !r.Duplicate() || !lost.Approved || e.transaction(t, r.UniqueTransID).Charge != nil {
				t.Errorf("resend = %+v", r)
			}
		})
	}
}

func TestLaunchRetriedOnlyWhenNotReceived(t *testing.T) {
	e := newEnv(t, nil)
	e.faults.FailNext("terminals", http.StatusTooManyRequests)
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = e.client.Launch(context.Background(), e.loc, "EMULATOR", terminals.Sale(1000, "", ""))
	}()
	e.drive(done, time.Second)
	if err != nil || e.requests() != 2 {
		t.Errorf("after a 429: err %v, requests %d, want a second attempt", err, e.requests())
	}

	// Nothing listens: the request never left, so it is not an unknown
	// outcome.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, _ := terminals.New(terminals.Config{BaseURL: dead.URL, MaxAttempts: 1})
	_, err = c.Launch(context.Background(), e.loc, "EMULATOR", terminals.Sale(1000, "", ""))
	if err == nil || errors.Is(err, terminals.ErrOutcomeUnknown) {
		t.Errorf("refused connection: %v", err)
	}
}

func TestReadsAreRetried(t *testing.T) {
	e := newEnv(t, nil)
	l := e.launch(t, e.loc, "EMULATOR", terminals.Sale(1000, "", ""))
	e.clock.Advance(3 * time.Second)
	e.faults.FailNext("terminals", http.StatusBadGateway, 0)
	done := make(chan struct{})
	var r *terminals.Result
	var err error
	go func() {
		defer close(done)
		r, err = e.client.Result(context.Background(), e.loc, l.UniqueTransID)
	}()
	e.drive(done, time.Second)
	if err != nil || !r.ResultStatus {
		t.Fatalf("result after 502 and a drop: %v", err)
	}
	if _, err := e.client.Result(context.Background(), e.loc, "ffffffffffffffffffffffffffffffff"); !errors.Is(err, terminals.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	l2 := e.launch(t, e.loc, "EMULATOR", terminals.Sale(1000, "", ""))
	if _, err := e.client.Result(context.Background(), e.loc, l2.UniqueTransID); !errors.Is(err, terminals.ErrNotReady) {
		t.Errorf("before the cardholder: %v", err)
	}
}

func TestPollingBudget(t *testing.T) {
	e := newEnv(t, nil)
	e.admin(t, http.MethodPut, "/settings", map[string]any{"terminalTimeout": "10m"}, nil)
	l := e.launch(t, e.loc, "EMULATOR", terminals.Sale(153, "", ""))
	before := e.requests()
	_, err := e.await(e.loc, l)
	if !errors.Is(err, terminals.ErrBudgetExceeded) || !errors.Is(err, terminals.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want the budget exceeded", err)
	}
	// Reads at 1..30 s, then 32, 36, every 5 s from 41 to 296, and the
	// last at 300 s.
	if n := e.requests() - before; n != 30+2+52+1 {
		t.Errorf("reads = %d, want 85", n)
	}
	if got := e.clock.Now().Sub(l.At); got != 5*time.Minute {
		t.Errorf("gave up after %v, want 5m", got)
	}
}

func TestAwaitStopsWithItsContext(t *testing.T) {
	e := newEnv(t, nil)
	l := e.launch(t, e.loc, "EMULATOR", terminals.Sale(100, "", ""))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := e.client.AwaitResult(ctx, terminals.Watch{Location: e.loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At})
		done <- err
	}()
	if err := e.clock.WaitForTimers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
