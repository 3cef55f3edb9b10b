package accounts

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// The area's buckets in the shared store. Each request reads or writes only
// the keys it needs, in one bbolt transaction: no lock of the area's own,
// no rewrite of the whole state.
const (
	bApps     = "accounts.applications" // application id → appRecord
	bExternal = "accounts.external"     // externalApplicationId → application id
	bOrder    = "accounts.order"        // sequence (8 bytes, big-endian) → application id
	bTokens   = "accounts.tokens"       // SHA-256 of a token from /auth → expiry
	bCodes    = "accounts.pricingCodes" // pricing code → PricingCode
	bDue      = "accounts.due"          // due time + kind + id → nothing: the work waiting on the clock
	bHooks    = "accounts.webhooks"     // delivery id → delivery
	bMeta     = "accounts.meta"         // counters and markers
)

var allBuckets = []string{bApps, bExternal, bOrder, bTokens, bCodes, bDue, bHooks, bMeta}

// change is one write transaction and what to do once it has committed:
// wake the alarm for work it made due, announce boarded merchants.
type change struct {
	tx      *bolt.Tx
	now     time.Time
	wake    time.Time
	boarded []kit.Merchant
}

// wakeAt asks for the alarm at t, once the transaction has committed.
func (c *change) wakeAt(t time.Time) {
	if c.wake.IsZero() || t.Before(c.wake) {
		c.wake = t
	}
}

// update runs fn in a write transaction and, after the commit, sets the
// alarm and announces boarded merchants.
func (s *Server) update(fn func(c *change) error) error {
	c := &change{}
	err := s.db.Update(func(tx *bolt.Tx) error {
		*c = change{tx: tx, now: s.env.Clock.Now()}
		return fn(c)
	})
	if err != nil {
		return err
	}
	if !c.wake.IsZero() {
		s.alarm.Set(c.wake)
	}
	for _, m := range c.boarded {
		s.announce(m)
	}
	return nil
}

// view runs fn in a read transaction; readers never wait for writers.
func (s *Server) view(fn func(tx *bolt.Tx) error) error {
	return s.db.View(fn)
}

// loadApp reads one application; ErrNotFound when there is none.
func loadApp(tx *bolt.Tx, id string) (*appRecord, error) {
	var a appRecord
	if err := kit.Get(tx, bApps, id, &a); err != nil {
		if errors.Is(err, kit.ErrNotFound) {
			return nil, fmt.Errorf("application %s: %w", id, ErrNotFound)
		}
		return nil, err
	}
	return &a, nil
}

// saveApp writes one application back.
func saveApp(tx *bolt.Tx, a *appRecord) error {
	return kit.Put(tx, bApps, a.ID, a)
}

// seqKey is a sequence number as a sortable key.
func seqKey(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}

// Kinds of due work.
const (
	dueDecision = 'u' // an underwriting decision; id is the application id
	dueWebhook  = 'w' // a webhook delivery attempt; id is the delivery id
)

// dueKey orders due work by time: 8 bytes of Unix nanoseconds, the kind,
// the id.
func dueKey(at time.Time, kind byte, id string) []byte {
	k := make([]byte, 0, 9+len(id))
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
	k = append(k, kind)
	return append(k, id...)
}

// dueItem is one entry of the due bucket.
type dueItem struct {
	at   time.Time
	kind byte
	id   string
}

func parseDueKey(k []byte) (dueItem, bool) {
	if len(k) < 9 {
		return dueItem{}, false
	}
	return dueItem{at: time.Unix(0, int64(binary.BigEndian.Uint64(k[:8]))), kind: k[8], id: string(k[9:])}, true
}

// putDue records work due at at and wakes the alarm for it after commit.
func putDue(c *change, at time.Time, kind byte, id string) error {
	c.wakeAt(at)
	return c.tx.Bucket([]byte(bDue)).Put(dueKey(at, kind, id), []byte{})
}

// deleteDue forgets due work.
func deleteDue(tx *bolt.Tx, at time.Time, kind byte, id string) error {
	return tx.Bucket([]byte(bDue)).Delete(dueKey(at, kind, id))
}

// metaInt reads a counter of the meta bucket.
func metaInt(tx *bolt.Tx, key string) int {
	var n int
	_ = kit.Get(tx, bMeta, key, &n)
	return n
}

// addMetaInt adds d to a counter of the meta bucket.
func addMetaInt(tx *bolt.Tx, key string, d int) error {
	return kit.Put(tx, bMeta, key, metaInt(tx, key)+d)
}

// decodeJSON is json.Unmarshal for the area's own records.
func decodeJSON(raw []byte, v any) error { return json.Unmarshal(raw, v) }
