package auth

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil/testdb"
)

// Replicas starting together on an empty database each try to create the
// first admin: one does, the others find it made, and none fails its start.
func TestEnsureAdminOnReplicasStartingTogether(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	const replicas = 4
	var wg sync.WaitGroup
	created := make(chan bool, replicas)
	errs := make(chan error, replicas)
	start := make(chan struct{})
	for range replicas {
		svc := NewService(db, Options{Now: time.Now, Log: slog.New(slog.DiscardHandler)})
		wg.Go(func() {
			<-start
			ok, _, err := svc.EnsureAdmin(context.Background(), "first@example.com", "")
			created <- ok
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(created)
	close(errs)
	n := 0
	for ok := range created {
		if ok {
			n++
		}
	}
	for err := range errs {
		if err != nil {
			t.Errorf("a replica failed its start: %v", err)
		}
	}
	if n != 1 {
		t.Errorf("%d replicas created the admin, want 1", n)
	}
}
