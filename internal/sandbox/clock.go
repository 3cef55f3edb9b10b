package sandbox

import (
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// restoreClock resumes a manual clock where it stood before a restart (a
// rehearsal that moved a day ahead stays a day ahead), and saves its
// reading after every move.
func (s *Server) restoreClock() error {
	mc, ok := s.env.Clock.(*kit.ManualClock)
	if !ok {
		return nil
	}
	var saved time.Time
	_ = s.store.DB.View(func(tx *bolt.Tx) error { return kit.Get(tx, bRoot, "manualClock", &saved) })
	if saved.After(mc.Now()) {
		mc.Set(saved)
	}
	s.cancel = mc.OnChange(func() {
		s.clockMu.Lock()
		defer s.clockMu.Unlock()
		now := mc.Now()
		if err := s.store.DB.Update(func(tx *bolt.Tx) error { return kit.Put(tx, bRoot, "manualClock", now) }); err != nil {
			s.log.Error("sandbox clock reading not saved", "err", err)
		}
	})
	return nil
}

// Advance moves a manual clock forward by d; whatever falls due (an
// underwriting decision, a webhook retry) has happened when it returns. It
// reports false on the wall clock.
func (s *Server) Advance(d time.Duration) bool {
	mc, ok := s.env.Clock.(*kit.ManualClock)
	if ok {
		mc.Advance(d)
	}
	return ok
}
