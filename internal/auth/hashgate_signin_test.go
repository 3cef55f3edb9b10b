package auth

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// Work-conserving: one address alone uses every slot, and the sign-ins
// beyond them wait for a slot instead of being refused; each freed slot goes
// to a waiting sign-in at once.
func TestSignInsFromOneAddressWaitForASlot(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	svc := NewService(db, Options{HashSlots: 2, Limits: &ThrottleLimits{Window: time.Minute, PerAccount: 1000, PerAddress: 1000}})
	ctx := context.Background()
	if _, _, err := svc.CreateUser(ctx, NewUser{Email: "rep@example.com", Role: models.RoleSalesRep, Password: "correct-horse-battery"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inFlight, peak := 0, 0
	entered, proceed := make(chan struct{}, 8), make(chan struct{})
	svc.gate.onHash = func() {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		entered <- struct{}{}
		<-proceed
		mu.Lock()
		inFlight--
		mu.Unlock()
	}
	const signIns = 5
	results := make(chan error, signIns)
	for range signIns {
		go func() {
			_, err := svc.Authenticate(ctx, "rep@example.com", "correct-horse-battery", "198.51.100.7")
			results <- err
		}()
	}
	// Both slots go to the one address; then each hash that ends lets the
	// next sign-in in, until all five are hashed.
	for range 2 {
		select {
		case <-entered:
		case err := <-results:
			t.Fatalf("a sign-in ended before two hashes started: %v", err)
		}
	}
	ended := 0
	for i := 2; i < signIns; i++ {
		proceed <- struct{}{}
		select {
		case <-entered:
		case err := <-results:
			if err != nil {
				t.Fatalf("sign-in %d refused while a slot was freed: %v", i+1, err)
			}
			ended++
			<-entered
		}
	}
	close(proceed)
	for range signIns - ended {
		if err := <-results; err != nil {
			t.Errorf("sign-in: %v", err)
		}
	}
	if peak != 2 {
		t.Fatalf("%d hashes at once, want 2", peak)
	}
}
