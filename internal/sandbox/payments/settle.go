package payments

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// metaNextCutOff is where the next cut-off is kept.
const metaNextCutOff = "nextCutOff"

// nextCutOffAfter returns the first daily cut-off strictly after t.
func (a *Area) nextCutOffAfter(t time.Time) time.Time {
	local := t.In(a.opts.CutOffZone)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, a.opts.CutOffZone)
	c := day.Add(a.opts.CutOff)
	for !c.After(t) {
		day = day.AddDate(0, 0, 1)
		c = day.Add(a.opts.CutOff)
	}
	return c
}

// settleDue closes the open batches when the daily cut-off has passed
// since the last look. Every request calls it first, so settlement follows
// the sandbox clock, manual or not, without a background timer. Batches
// close at the first cut-off passed; later ones find them empty.
func (a *Area) settleDue(tx *bolt.Tx, now time.Time) error {
	meta := tx.Bucket([]byte(bucketMeta))
	var next time.Time
	if raw := meta.Get([]byte(metaNextCutOff)); raw != nil {
		if err := next.UnmarshalText(raw); err != nil {
			return err
		}
	}
	if !next.IsZero() && now.Before(next) {
		return nil
	}
	if !next.IsZero() {
		if err := a.closeAll(tx, "", next); err != nil {
			return err
		}
	}
	raw, _ := a.nextCutOffAfter(now).MarshalText()
	return meta.Put([]byte(metaNextCutOff), raw)
}

// closeAll closes the open batch of oid (of every account when empty) at
// at, and returns the batches it closed.
func (a *Area) closeAll(tx *bolt.Tx, oid string, at time.Time) error {
	_, err := a.closeBatches(tx, oid, at)
	return err
}

func (a *Area) closeBatches(tx *bolt.Tx, oid string, at time.Time) ([]Batch, error) {
	var oids []string
	if oid != "" {
		oids = []string{oid}
	} else if err := kit.Each(tx, bucketAccounts, func(k string, _ []byte) error {
		oids = append(oids, k)
		return nil
	}); err != nil {
		return nil, err
	}
	var closed []Batch
	for _, o := range oids {
		b, err := a.closeBatch(tx, o, at)
		if err != nil {
			return nil, err
		}
		if b != nil {
			closed = append(closed, *b)
		}
	}
	return closed, nil
}

// closeBatch settles the open batch of one account, if it holds anything,
// and opens the next one.
func (a *Area) closeBatch(tx *bolt.Tx, oid string, at time.Time) (*Batch, error) {
	acct, err := a.accountTx(tx, oid)
	if err != nil {
		return nil, err
	}
	b := &Batch{OID: oid, Number: acct.Batch, OpenedAt: acct.BatchOpenedAt, SettledAt: &at}
	var changed []*Transaction
	err = eachTransaction(tx, oid, func(t *Transaction) error {
		if t.Batch != acct.Batch || t.VoidedBy != "" || t.SettledAt != nil {
			return nil
		}
		settled := at
		t.SettledAt = &settled
		if t.ReturnCode != "" {
			due := at.Add(a.opts.ACHReturnDelay)
			t.ReturnDueAt = &due
		}
		b.Count++
		b.NetCents += signed(t)
		changed = append(changed, t)
		return nil
	})
	if err != nil || b.Count == 0 {
		return nil, err
	}
	for _, t := range changed {
		if err := a.updateTransaction(tx, t); err != nil {
			return nil, err
		}
	}
	if err := kit.Put(tx, bucketBatches, batchKey(oid, b.Number), b); err != nil {
		return nil, err
	}
	acct.Batch, acct.BatchOpenedAt = acct.Batch+1, at
	return b, kit.Put(tx, bucketAccounts, oid, acct)
}

// signed is a transaction's effect on a batch's net: sales count, returns
// count against.
func signed(t *Transaction) int64 {
	if t.Type == typeReturn || t.Type == typeACHReturn {
		return -t.ProcessedCents
	}
	return t.ProcessedCents
}

func batchKey(oid string, n int) string { return fmt.Sprintf("%s/%08d", oid, n) }

// SettleNow closes the open batch of oid (every account's when empty) at
// the sandbox clock's now: the admin's "settle now". Sandbox-only: the
// published API cannot read or force settlement.
func (a *Area) SettleNow(oid string) ([]Batch, error) {
	var closed []Batch
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now := a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		var err error
		closed, err = a.closeBatches(tx, oid, now.UTC())
		return err
	})
	return closed, err
}

// Batches lists the batches of oid (every account's when empty), the open
// ones first, then the settled ones newest first.
func (a *Area) Batches(oid string) ([]Batch, error) {
	var out []Batch
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		if err := a.settleDue(tx, a.env.Clock.Now()); err != nil {
			return err
		}
		open, err := openBatches(tx, oid)
		if err != nil {
			return err
		}
		settled, err := settledBatches(tx, oid)
		if err != nil {
			return err
		}
		out = append(open, settled...)
		return nil
	})
	return out, err
}

// openBatches lists the open batch of oid (of every account when empty),
// each with the count and net of its unvoided, unsettled transactions,
// newest first.
func openBatches(tx *bolt.Tx, oid string) ([]Batch, error) {
	open := map[string]*Batch{}
	if err := kit.EachJSON(tx, bucketAccounts, func(k string, acct *Account) error {
		if oid == "" || oid == k {
			open[k] = &Batch{OID: k, Number: acct.Batch, OpenedAt: acct.BatchOpenedAt}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	err := eachTransaction(tx, oid, func(t *Transaction) error {
		if b := open[t.OID]; b != nil && t.Batch == b.Number && t.VoidedBy == "" && t.SettledAt == nil {
			b.Count++
			b.NetCents += signed(t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Batch
	for _, b := range open {
		out = append(out, *b)
	}
	sortNewest(out, func(b Batch) time.Time { return b.OpenedAt })
	return out, nil
}

// settledBatches lists the settled batches of oid (of every account when
// empty), newest first.
func settledBatches(tx *bolt.Tx, oid string) ([]Batch, error) {
	var settled []Batch
	err := kit.EachJSON(tx, bucketBatches, func(_ string, b *Batch) error {
		if oid == "" || b.OID == oid {
			settled = append(settled, *b)
		}
		return nil
	})
	sortNewest(settled, func(b Batch) time.Time { return *b.SettledAt })
	return settled, err
}

// timesOut reports a request the processor-timeout test card or amount
// makes time out: the card on any keyed card operation; the amount on a
// sale or authorization whose card would otherwise be approved.
func (a *Area) timesOut(oid string, q *request) (bool, error) {
	if q.op.card && testCardIndex[q.str("cardNumber")].Behavior == string(procTimeout) {
		return true, nil
	}
	switch q.op.name {
	case "sale", "authorization":
		return amountTriggers[q.amount] == procTimeout && testCardIndex[q.str("cardNumber")].Behavior == string(approve), nil
	case "tokenizedPayment", "tokenizedAuth":
		if amountTriggers[q.amount] != procTimeout {
			return false, nil
		}
		var out bool
		err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
			ref, err := a.transaction(tx, oid, q.str("uniqueTransId"))
			if err != nil || ref == nil || ref.VaultToken == "" {
				return err
			}
			v, err := a.vaultGet(tx, ref.VaultToken)
			if err != nil {
				return err
			}
			out = v.Kind == "card" && v.Behavior == approve
			return nil
		})
		return out, err
	}
	return false, nil
}
