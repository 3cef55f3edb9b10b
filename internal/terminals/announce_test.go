package terminals_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
)

// announcements records what the room (finished launches) and its ledger (answers, with
// the status before) announce, in order.
type announcements struct {
	mu   sync.Mutex
	said []string
}

func (a *announcements) add(s string) { a.mu.Lock(); a.said = append(a.said, s); a.mu.Unlock() }

func (a *announcements) LaunchFinished(_ context.Context, tx pgx.Tx, l *terminals.Launch) error {
	if tx == nil {
		return fmt.Errorf("announced outside a transaction")
	}
	a.add("finished " + string(l.State))
	return nil
}

func (a *announcements) Answered(_ context.Context, tx pgx.Tx, before payments.Status, t *payments.Transaction) error {
	if tx == nil {
		return fmt.Errorf("announced outside a transaction")
	}
	a.add("answered " + string(before) + "→" + string(t.Status))
	return nil
}

func (a *announcements) reset() { a.mu.Lock(); a.said = nil; a.mu.Unlock() }

func (a *announcements) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.said)
}

// A launch is announced once, when it finished; its ledger line's answers are announced
// with the status they left, so an unknown outcome's resolution is known as one.
func TestFinishedLaunchesAndTheirAnswersAreAnnounced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	l := e.launch(t, e.user, sale("12.50", "INV-1", ""))
	e.finished(t, l.ID, 10*time.Second)
	if got, want := e.announced.list(), []string{"finished approved", "answered pending→approved"}; !slices.Equal(got, want) {
		t.Fatalf("an approved sale announced %q, want %q", got, want)
	}

	e.announced.reset()
	e.adminJSON(t, "PUT", "/settings", `{"cardholderDelay": "10m"}`, nil)
	slow := e.launch(t, e.user, sale("20.00", "SLOW", ""))
	e.after(t, slow.ID, 5*time.Minute, func(l *terminals.Launch) bool { return l.State == terminals.StateUnknown })
	if got := e.announced.list(); !slices.Equal(got, []string{"answered pending→checking"}) {
		t.Fatalf("an unknown outcome announced %q", got)
	}
	e.finished(t, slow.ID, 6*time.Minute)
	if got, want := e.announced.list(), []string{"answered pending→checking", "finished approved", "answered checking→approved"}; !slices.Equal(got, want) {
		t.Fatalf("a resolved outcome announced %q, want %q", got, want)
	}
}
