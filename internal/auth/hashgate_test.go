package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// With the limit set to N, never more than N hashes run at once, the excess
// is answered at once without hashing, and one address holds at most half.
func TestPasswordHashesAreBoundedAndSharedFairly(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	svc := NewService(db, Options{HashSlots: 4, Limits: &ThrottleLimits{Window: time.Minute, PerAccount: 1000, PerAddress: 1000}})
	if _, _, err := svc.CreateUser(context.Background(), NewUser{Email: "rep@example.com", Role: models.RoleSalesRep, Password: "correct-horse-battery"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inFlight, peak, hashed := 0, 0, 0
	gate := make(chan struct{})
	entered := make(chan struct{}, 64)
	svc.gate.onHash = func() {
		mu.Lock()
		inFlight++
		hashed++
		peak = max(peak, inFlight)
		mu.Unlock()
		entered <- struct{}{}
		<-gate
		mu.Lock()
		inFlight--
		mu.Unlock()
	}

	// Two addresses each try three sign-ins at once, while every hash is held.
	type result struct{ err error }
	results := make(chan result, 6)
	var wg sync.WaitGroup
	for i := range 6 {
		ip := fmt.Sprintf("198.51.100.%d", i%2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Authenticate(context.Background(), "rep@example.com", "wrong-password-1", ip)
			results <- result{err}
		}()
	}
	// Four hashes (two per address) start; the other two are refused at once.
	for range 4 {
		<-entered
	}
	busy := 0
	for range 2 {
		r := <-results
		var b *ErrBusy
		if !errors.As(r.err, &b) || !b.PerAddress {
			t.Fatalf("excess sign-in: %v, want a per-address ErrBusy", r.err)
		}
		busy++
	}
	// A third address finds every slot taken.
	if _, err := svc.Authenticate(context.Background(), "rep@example.com", "wrong-password-1", "203.0.113.9"); !isBusy(err, false) {
		t.Fatalf("sign-in with every slot taken: %v, want ErrBusy", err)
	}
	close(gate)
	wg.Wait()
	close(results)
	for r := range results {
		if !errors.Is(r.err, ErrInvalidCredentials) {
			t.Errorf("hashed sign-in: %v, want invalid credentials", r.err)
		}
	}
	if peak > 4 || hashed != 4 || busy != 2 {
		t.Fatalf("peak %d hashes at once, %d hashed, %d refused; want ≤ 4, 4, 2", peak, hashed, busy)
	}
}

func isBusy(err error, perAddress bool) bool {
	var b *ErrBusy
	return errors.As(err, &b) && b.PerAddress == perAddress
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
