package accounts

import (
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// runDue does the work whose time has come (underwriting decisions,
// webhook attempts) and sets the alarm for the next. The alarm calls it,
// never twice at once.
func (s *Server) runDue(now time.Time) {
	var due []dueItem
	var next time.Time
	err := s.view(func(tx *bolt.Tx) error {
		cur := tx.Bucket([]byte(bDue)).Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			item, ok := parseDueKey(k)
			if !ok {
				continue
			}
			if item.at.After(now) {
				next = item.at
				break
			}
			due = append(due, item)
		}
		return nil
	})
	if err != nil {
		s.log.Error("sandbox due work not read", "err", err)
		return
	}
	for _, item := range due {
		switch item.kind {
		case dueDecision:
			if err := s.decide(item); err != nil {
				s.log.Error("sandbox underwriting decision failed", "application_id", item.id, "err", err)
			}
		case dueWebhook:
			s.hooks.attempt(item)
		}
	}
	if !next.IsZero() {
		s.alarm.Set(next)
	}
}

// rearm sets the alarm for the earliest stored work after a start, and
// makes the deliveries that were in flight when the sandbox stopped due
// again.
func (s *Server) rearm() error {
	var first time.Time
	err := s.update(func(c *change) error {
		err := kit.Each(c.tx, bHooks, func(_ string, raw []byte) error {
			var d delivery
			if err := decodeJSON(raw, &d); err != nil {
				return nil
			}
			return putDue(c, d.Due, dueWebhook, d.ID)
		})
		if err != nil {
			return err
		}
		if k, _ := c.tx.Bucket([]byte(bDue)).Cursor().First(); k != nil {
			if item, ok := parseDueKey(k); ok {
				first = item.at
			}
		}
		return nil
	})
	if err == nil && !first.IsZero() {
		s.alarm.Set(first)
	}
	return err
}
