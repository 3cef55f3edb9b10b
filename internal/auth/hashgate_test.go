package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// fakeTimers stands in for the gate's clock: each wait's bound fires only
// when the test says so.
type fakeTimers struct {
	mu     sync.Mutex
	timers []chan time.Time
}

func (f *fakeTimers) start(time.Duration) (<-chan time.Time, func() bool) {
	c := make(chan time.Time, 1)
	f.mu.Lock()
	f.timers = append(f.timers, c)
	f.mu.Unlock()
	return c, func() bool { return true }
}

// fire ends the bound of the i-th wait started.
func (f *fakeTimers) fire(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.timers[i] <- time.Time{}
}

// gateUnderTest is a gate whose joins to the queue can be waited for.
type gateUnderTest struct {
	*hashGate
	clock  *fakeTimers
	joined chan string
}

func newGateUnderTest(slots, queue int) *gateUnderTest {
	g := &gateUnderTest{hashGate: newHashGate(hashGateOptions{Slots: slots, MaxQueue: queue}), clock: &fakeTimers{}, joined: make(chan string, 64)}
	g.timer = g.clock.start
	g.onWait = func(ip string) { g.joined <- ip }
	return g
}

// grant is what one acquire ended with.
type grant struct {
	ip      string
	release func()
	err     error
}

// queue starts an acquire for ip and waits until it has joined the queue;
// its outcome arrives on out.
func (g *gateUnderTest) queue(t *testing.T, ip string, out chan<- grant) {
	t.Helper()
	go func() {
		release, _, err := g.acquire(context.Background(), ip)
		out <- grant{ip, release, err}
	}()
	if got := <-g.joined; got != ip {
		t.Fatalf("%s joined the queue, want %s", got, ip)
	}
}

func mustAcquire(t *testing.T, g *gateUnderTest, ip string) func() {
	t.Helper()
	release, waited, err := g.acquire(context.Background(), ip)
	if err != nil || waited {
		t.Fatalf("acquire for %s: waited %v, %v; want a free slot at once", ip, waited, err)
	}
	return release
}

// Fair under contention: freed slots go round the addresses that wait, so
// one address's many sign-ins do not hold back another's.
func TestHashSlotsGoRoundTheWaitingAddresses(t *testing.T) {
	t.Parallel()
	g := newGateUnderTest(1, 16)
	release := mustAcquire(t, g, "office")
	out := make(chan grant, 8)
	for range 4 {
		g.queue(t, "office", out)
	}
	g.queue(t, "home", out)
	var order []string
	for range 5 {
		release()
		got := <-out
		if got.err != nil {
			t.Fatalf("%s: %v", got.ip, got.err)
		}
		order = append(order, got.ip)
		release = got.release
	}
	release()
	if want := "office home office office office"; strings.Join(order, " ") != want {
		t.Fatalf("slots went to %v, want %s", order, want)
	}
	if mustAcquire(t, g, "home")(); g.busy != 0 {
		t.Fatalf("%d slots still taken", g.busy)
	}
}

// The wait is bounded: past it the sign-in is refused (503, Retry-After),
// and the slot it waited for goes to nobody who has left.
func TestHashSlotWaitIsBounded(t *testing.T) {
	t.Parallel()
	g := newGateUnderTest(1, 16)
	release := mustAcquire(t, g, "198.51.100.1")
	out := make(chan grant, 2)
	g.queue(t, "198.51.100.2", out)
	g.queue(t, "198.51.100.3", out)
	g.clock.fire(0)
	if got := <-out; got.ip != "198.51.100.2" || !isBusy(got.err, false) {
		t.Fatalf("%s after its wait's bound: %v, want ErrBusy", got.ip, got.err)
	}
	release()
	got := <-out
	if got.ip != "198.51.100.3" || got.err != nil {
		t.Fatalf("the freed slot went to %s (%v), want 198.51.100.3", got.ip, got.err)
	}
	got.release()
	if g.busy != 0 || g.waiting != 0 || len(g.turns) != 0 {
		t.Fatalf("gate left with %d slots taken, %d waiting, turns %v", g.busy, g.waiting, g.turns)
	}
}

// A full queue makes room for a newcomer from another address by turning
// away the latest waiter of the address holding the most; that address
// itself is refused (429), and so is anyone when every address holds as
// little as the newcomer would (503).
func TestFullHashQueueIsSharedBetweenAddresses(t *testing.T) {
	t.Parallel()
	g := newGateUnderTest(1, 2)
	release := mustAcquire(t, g, "office")
	out := make(chan grant, 8)
	g.queue(t, "office", out)
	g.queue(t, "office", out)
	g.queue(t, "home", out)
	if got := <-out; got.ip != "office" || !isBusy(got.err, true) {
		t.Fatalf("%s: %v, want the office's latest waiter turned away (ErrBusy per address)", got.ip, got.err)
	}
	if _, _, err := g.acquire(context.Background(), "office"); !isBusy(err, true) {
		t.Fatalf("the office again with the queue full: %v, want ErrBusy per address", err)
	}
	if _, _, err := g.acquire(context.Background(), "cafe"); !isBusy(err, false) {
		t.Fatalf("a third address with one waiter per address: %v, want ErrBusy", err)
	}
	for _, want := range []string{"office", "home"} {
		release()
		got := <-out
		if got.ip != want || got.err != nil {
			t.Fatalf("slot went to %s (%v), want %s", got.ip, got.err, want)
		}
		release = got.release
	}
	release()
}

// A sign-in that waited for its slot is checked against the throttle again
// before it hashes: failures recorded while it waited (by other sign-ins, on
// any replica) refuse it without a hash.
func TestSignInIsThrottledAgainAfterItsWait(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	now := time.Date(2026, time.December, 8, 9, 0, 0, 0, time.UTC)
	svc := NewService(db, Options{HashSlots: 1, Now: func() time.Time { return now },
		Limits: &ThrottleLimits{Window: time.Hour, PerAccount: 2, PerAddress: 100}})
	ctx := context.Background()
	hashed := 0
	entered, proceed := make(chan struct{}, 2), make(chan struct{})
	svc.gate.onHash = func() {
		hashed++
		entered <- struct{}{}
		<-proceed
	}
	joined := make(chan string, 1)
	svc.gate.onWait = func(ip string) { joined <- ip }
	first := make(chan error, 1)
	go func() {
		_, err := svc.Authenticate(ctx, "rep@example.com", "wrong-password-1", "198.51.100.1")
		first <- err
	}()
	<-entered
	second := make(chan error, 1)
	go func() {
		_, err := svc.Authenticate(ctx, "rep@example.com", "wrong-password-2", "198.51.100.2")
		second <- err
	}()
	<-joined
	// Another replica records a failure for the account meanwhile: with the
	// first sign-in's, the account reaches its limit.
	if err := svc.throttle.recordFailure(ctx, "rep@example.com", "203.0.113.5", now); err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if err := <-first; !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("first sign-in: %v", err)
	}
	var throttled *ThrottledError
	if err := <-second; !errors.As(err, &throttled) {
		t.Fatalf("sign-in after its wait: %v, want ThrottledError", err)
	}
	if hashed != 1 {
		t.Fatalf("%d hashes, want 1 (the throttled sign-in is not hashed)", hashed)
	}
}

// A sign-in is counted against the throttle before its password is hashed,
// so a burst cannot outrun the limit while hashes are still running.
func TestSignInIsCountedBeforeHashing(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	svc := NewService(db, Options{HashSlots: 2})
	var counted int64
	svc.gate.onHash = func() {
		if err := db.Gorm.Raw("SELECT count(*) FROM login_failures").Scan(&counted).Error; err != nil {
			t.Error(err)
		}
	}
	if _, err := svc.Authenticate(context.Background(), "ghost@example.com", "wrong-password-1", "198.51.100.1"); !errors.Is(err, ErrInvalidCredentials) {
		t.Fatal(err)
	}
	if counted != 1 {
		t.Fatalf("failures recorded while hashing: %d, want 1", counted)
	}
}

// A successful sign-in leaves no failure behind for its address.
func TestSuccessfulSignInIsNotCountedAsAFailure(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	svc := NewService(db, Options{})
	ctx := context.Background()
	if _, _, err := svc.CreateUser(ctx, NewUser{Email: "rep@example.com", Role: models.RoleSalesRep, Password: "correct-horse-battery"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, "rep@example.com", "correct-horse-battery", "198.51.100.1"); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.Gorm.Raw("SELECT count(*) FROM login_failures").Scan(&n).Error; err != nil || n != 0 {
		t.Fatalf("failures after a success: %d (%v)", n, err)
	}
}

func isBusy(err error, perAddress bool) bool {
	var b *ErrBusy
	return errors.As(err, &b) && b.PerAddress == perAddress
}

// The hash an unknown e-mail is checked against costs what a real one
// costs: it carries the parameters HashPassword uses now.
func TestDummyHashHasTheCurrentParameters(t *testing.T) {
	t.Parallel()
	real, err := HashPassword("correct-horse-battery")
	if err != nil {
		t.Fatal(err)
	}
	params := func(h string) string { return strings.Join(strings.Split(h, "$")[:4], "$") }
	if params(dummyHash) != params(real) {
		t.Fatalf("dummy hash %s, HashPassword %s: parameters differ", params(dummyHash), params(real))
	}
	if ok, err := VerifyPassword(dummyHash, "correct-horse-battery"); ok || err != nil {
		t.Fatalf("dummy hash: matched %v, %v", ok, err)
	}
}
