package terminals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// Defaults of FollowConfig.
const (
	DefaultLease       = 10 * time.Second
	DefaultRecheckFor  = 24 * time.Hour
	DefaultMaxInFlight = 32
	// claimBatch bounds the launches one take-over scan claims.
	claimBatch = 500
)

// FollowConfig tunes the follower.
type FollowConfig struct {
	// Lease is how long a process's hold on the launches it follows lasts
	// without renewal; it renews every third of it. A process killed
	// mid-poll has its launches taken over within Lease. Default 10 s.
	Lease time.Duration
	// RecheckFor is how long after its launch an unknown launch whose id is
	// known is still rechecked in the background. Default 24 h.
	RecheckFor time.Duration
	// MaxInFlight bounds the result reads in flight at once, all launches
	// together. Default 32.
	MaxInFlight int
	// Follower names this process in the leases; default a random id.
	Follower string
}

// tracked is a launch this process follows (or is sending).
type tracked struct {
	launchID   uuid.UUID
	merchantID uuid.UUID
	locationID string
	device     string
	cloudID    string
	recheck    bool // followed by the slow poller
	failed     int  // failed reads since the last answer
	lastRead   time.Duration
}

// follower follows launched transactions: two pollers of the upstream
// client (results every second within the budget; slow rechecks of unknown
// launches), the leases on the launches it follows, and the take-over of
// launches whose process died.
type follower struct {
	svc     *Service
	cfg     FollowConfig
	fast    *upstream.Poller
	slow    *upstream.Poller
	clock   upstream.Clock
	log     *slog.Logger
	started chan struct{}

	mu      sync.Mutex
	byID    map[uuid.UUID]*tracked // every launch this process holds
	byCloud map[string]*tracked    // those with a cloud id, being polled
	running bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func newFollower(s *Service, fast, slow *upstream.Client, cfg FollowConfig) (*follower, error) {
	cfg.Lease = or(cfg.Lease, DefaultLease)
	cfg.RecheckFor = or(cfg.RecheckFor, DefaultRecheckFor)
	cfg.MaxInFlight = or(cfg.MaxInFlight, DefaultMaxInFlight)
	if cfg.Follower == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		cfg.Follower = "portal-" + hex.EncodeToString(b)
	}
	f := &follower{svc: s, cfg: cfg, clock: s.clock, log: s.log, byID: map[uuid.UUID]*tracked{},
		byCloud: map[string]*tracked{}, started: make(chan struct{})}
	var err error
	if f.fast, err = upstream.NewPoller(fast, upstream.PollerConfig{MaxInFlight: cfg.MaxInFlight, OnPoll: f.onPoll}); err != nil {
		return nil, err
	}
	if f.slow, err = upstream.NewPoller(slow, upstream.PollerConfig{MaxInFlight: 4, OnPoll: f.onPoll}); err != nil {
		return nil, err
	}
	return f, nil
}

// leaseUntil is the end of a lease taken or renewed now.
func (f *follower) leaseUntil() time.Time { return f.clock.Now().Add(f.cfg.Lease) }

// launchLease is the lease a new launch starts with: this process's while
// it follows launches; on a web-only process (no follower running) one that
// has run out already, so that a following process takes it at once.
func (f *follower) launchLease() time.Time {
	f.mu.Lock()
	running := f.running
	f.mu.Unlock()
	if !running {
		return f.clock.Now()
	}
	return f.leaseUntil()
}

// start runs the pollers and the lease loop until stop.
func (f *follower) start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running {
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f.running, f.cancel, f.done = true, cancel, make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = f.fast.Run(ctx) })
	wg.Go(func() { _ = f.slow.Run(ctx) })
	wg.Go(func() { f.leaseLoop(ctx) })
	go func() { wg.Wait(); close(f.done) }()
}

// stop ends the loops, waits for the reads in flight, and releases the
// leases so that the next process takes the launches over at once.
func (f *follower) stop(ctx context.Context) error {
	f.mu.Lock()
	if !f.running {
		f.mu.Unlock()
		return nil
	}
	f.running = false
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	cancel()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return f.svc.store.ReleaseLeases(ctx, f.cfg.Follower, f.clock.Now())
}

// leaseLoop renews this process's leases and takes over expired ones at
// once and then every third of the lease.
func (f *follower) leaseLoop(ctx context.Context) {
	every := f.cfg.Lease / 3
	first := true
	for {
		f.tick(ctx)
		if first {
			close(f.started)
			first = false
		}
		t := f.clock.NewTimerAt(f.clock.Now().Add(every))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// tick renews, reconciles and claims once.
func (f *follower) tick(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	held, err := f.svc.store.RenewLeases(cctx, f.cfg.Follower, f.leaseUntil())
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("terminal leases not renewed; retrying", "err", err)
		}
		return
	}
	f.reconcile(cctx, held)
	claimed, err := f.svc.store.ClaimExpired(cctx, f.cfg.Follower, f.leaseUntil(), f.clock.Now(), claimBatch)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("terminal launches not taken over; retrying", "err", err)
		}
		return
	}
	for _, l := range claimed {
		f.log.Info("following a terminal launch taken over", "launch_id", l.ID, "state", l.State)
		f.resume(cctx, l)
	}
}

// reconcile forgets the launches another process took over, and follows
// again those this process holds but no longer polls (a result that could
// not be recorded, for instance).
func (f *follower) reconcile(ctx context.Context, held map[uuid.UUID]bool) {
	f.mu.Lock()
	var lost []*tracked
	for id, t := range f.byID {
		if !held[id] {
			lost = append(lost, t)
		}
	}
	var orphans []uuid.UUID
	for id := range held {
		if _, ok := f.byID[id]; !ok {
			orphans = append(orphans, id)
		}
	}
	f.mu.Unlock()
	for _, t := range lost {
		f.forget(t.launchID)
	}
	for _, id := range orphans {
		l, err := f.svc.store.Launch(ctx, nil, id)
		if err != nil {
			f.log.Warn("terminal launch to follow again not loaded", "launch_id", id, "err", err)
			continue
		}
		f.resume(ctx, l)
	}
}

// resume follows a launch this process now holds: a waiting one on the
// fast poller, an unknown one with an id on the slow one; a sending one
// whose sender died is unknown (it may have reached the device).
func (f *follower) resume(ctx context.Context, l *Launch) {
	switch {
	case l.State == StateSending:
		f.svc.senderLost(ctx, l)
	case l.State == StateWaiting || (l.State == StateUnknown && l.UniqueTransID != nil):
		loc, err := f.svc.cloudLocation(ctx, l.MerchantID, l.LocationID)
		if err != nil {
			f.log.Warn("terminal launch not followed: its location is gone", "launch_id", l.ID, "err", err)
			return
		}
		f.watch(l, loc, l.State == StateUnknown)
	}
}

// sending marks a launch as this process's while its request is on its way.
func (f *follower) sending(l *Launch) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byID[l.ID] = &tracked{launchID: l.ID, merchantID: l.MerchantID, locationID: l.LocationID, device: l.DeviceName}
}

// watch follows a launch with an id until its result.
func (f *follower) watch(l *Launch, loc upstream.Location, recheck bool) {
	t := &tracked{launchID: l.ID, merchantID: l.MerchantID, locationID: l.LocationID, device: l.DeviceName,
		cloudID: l.CloudID(), recheck: recheck}
	f.mu.Lock()
	if old, ok := f.byCloud[t.cloudID]; ok && old.recheck == recheck {
		f.mu.Unlock()
		return // already followed
	}
	f.byID[l.ID], f.byCloud[t.cloudID] = t, t
	f.mu.Unlock()
	p, done := f.fast, f.finished
	if recheck {
		p, done = f.slow, f.rechecked
	}
	w := upstream.Watch{Location: loc, UniqueTransID: t.cloudID, LaunchedAt: deref(l.LaunchedAt),
		Done: func(fin upstream.Finished) { done(t, fin) }}
	if err := p.Watch(w); err != nil && !errors.Is(err, upstream.ErrAlreadyWatched) {
		f.log.Error("terminal launch not followed", "launch_id", l.ID, "err", err)
	}
}

// forget stops following a launch in this process.
func (f *follower) forget(id uuid.UUID) {
	f.mu.Lock()
	t, ok := f.byID[id]
	if ok {
		delete(f.byID, id)
		if t.cloudID != "" && f.byCloud[t.cloudID] == t {
			delete(f.byCloud, t.cloudID)
		}
	}
	f.mu.Unlock()
	if ok && t.cloudID != "" {
		f.fast.Forget(t.cloudID)
		f.slow.Forget(t.cloudID)
	}
}

// tracked returns the followed launch of a cloud id.
func (f *follower) trackedByCloud(cloudID string) *tracked {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byCloud[cloudID]
}

// onPoll keeps the evidence of a device's health from the reads: a
// failure grows the streak; the first answer after failures ends it. Reads
// that merely find the result not ready write nothing.
func (f *follower) onPoll(ev upstream.PollEvent) {
	t := f.trackedByCloud(ev.UniqueTransID)
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f.mu.Lock()
	t.lastRead = ev.Duration
	failedBefore := t.failed
	if ev.Err != nil {
		t.failed++
	} else {
		t.failed = 0
	}
	f.mu.Unlock()
	var err error
	switch {
	case ev.Err != nil:
		err = f.svc.store.NoteFailure(ctx, nil, t.locationID, t.device, problemOfRead(ev.Err), ev.Start)
	case failedBefore > 0 && !ev.Ready:
		err = f.svc.store.NoteAnswer(ctx, nil, t.locationID, t.device, ev.Start.Add(ev.Duration), ev.Duration, false)
	}
	if err != nil {
		f.log.Warn("terminal health not recorded", "err", err)
	}
}

// finished records the end of a launch followed within its budget.
func (f *follower) finished(t *tracked, fin upstream.Finished) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keep, err := f.svc.followed(ctx, t, fin, ResolvedByTerminal)
	f.after(t, keep, err)
}

// rechecked records the end of a slow recheck.
func (f *follower) rechecked(t *tracked, fin upstream.Finished) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keep, err := f.svc.followed(ctx, t, fin, ResolvedByRecheck)
	f.after(t, keep, err)
}

// after forgets a launch whose following ended, or hands it to the slow
// poller (keep). A launch whose news could not be recorded stays held: the
// lease loop follows it again.
func (f *follower) after(t *tracked, keep *Launch, err error) {
	f.mu.Lock()
	if f.byCloud[t.cloudID] == t {
		delete(f.byCloud, t.cloudID)
	}
	if err != nil {
		delete(f.byID, t.launchID) // followed again by reconcile
		f.mu.Unlock()
		f.log.Error("terminal launch result not recorded; it will be read again", "launch_id", t.launchID, "err", err)
		return
	}
	if keep == nil {
		delete(f.byID, t.launchID)
	}
	f.mu.Unlock()
	if keep != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		loc, err := f.svc.cloudLocation(ctx, keep.MerchantID, keep.LocationID)
		if err != nil {
			f.forget(t.launchID)
			return
		}
		f.watch(keep, loc, true)
	}
}

// or returns v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
