package terminals

import (
	"errors"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// merchantRecord links a boarded application to its API key and locations.
type merchantRecord struct {
	APIKey      string   `json:"apiKey"`
	LocationIDs []string `json:"locationIds"`
}

func getLocation(tx *bolt.Tx, id string) (*location, error) {
	var l location
	if err := kit.Get(tx, bucketLocations, id, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

func putLocation(tx *bolt.Tx, l *location) error {
	return kit.Put(tx, bucketLocations, l.LocationID, l)
}

func getTransaction(tx *bolt.Tx, id string) (*transaction, error) {
	var t transaction
	if err := kit.Get(tx, bucketTransactions, id, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

func putTransaction(tx *bolt.Tx, t *transaction) error {
	return kit.Put(tx, bucketTransactions, t.ID, t)
}

// transactionExists reports whether id is taken.
func transactionExists(tx *bolt.Tx, id string) bool {
	return tx.Bucket([]byte(bucketTransactions)).Get([]byte(id)) != nil
}

// nextSequence returns the next number of bucket, for location keys and
// processor transaction ids.
func nextSequence(tx *bolt.Tx, bucket string) (uint64, error) {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return 0, errors.New("bucket " + bucket + " does not exist")
	}
	return b.NextSequence()
}

// allLocations returns every location in id order.
func allLocations(tx *bolt.Tx) ([]*location, error) {
	var out []*location
	err := kit.EachJSON(tx, bucketLocations, func(_ string, l *location) error {
		out = append(out, l)
		return nil
	})
	return out, err
}

// recentTransactions returns up to limit transactions, newest launch
// first, of one location ("" for all).
func recentTransactions(tx *bolt.Tx, locationID string, limit int) ([]*transaction, error) {
	var out []*transaction
	err := kit.EachJSON(tx, bucketTransactions, func(_ string, t *transaction) error {
		if locationID == "" || t.LocationID == locationID {
			out = append(out, t)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b *transaction) int {
		if c := b.LaunchedAt.Compare(a.LaunchedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// ready reports whether t's result is there at now.
func (t *transaction) ready(now time.Time) bool { return !now.Before(t.ReadyAt) }
