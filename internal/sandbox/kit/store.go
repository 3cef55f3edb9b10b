package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Store is the sandbox's state: one embedded bbolt file shared by every
// area, each area in buckets of its own. bbolt gives transactions,
// concurrent readers and writes that touch only the pages they change, so
// answers stay as fast with 10,000 applications as with none.
type Store struct {
	DB     *bolt.DB
	remove string // a temporary file of ours, removed by Close
}

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("not found")

// OpenStore opens (creating) the state file at path; an empty path keeps
// state in a temporary file removed by Close. A state file is synced to disk
// at every commit, so a rehearsal survives a crash of the machine; a
// temporary one (the in-process sandbox of the tests and benchmarks) is not,
// since nothing reads it after the process ends: its writes no longer queue
// behind one another's disk flushes.
func OpenStore(path string) (*Store, error) {
	s := &Store{}
	if path == "" {
		dir, err := os.MkdirTemp("", "portal-sandbox-state-")
		if err != nil {
			return nil, fmt.Errorf("sandbox state: %w", err)
		}
		path, s.remove = filepath.Join(dir, "state.db"), dir
	} else if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second, NoFreelistSync: true, NoSync: s.remove != ""})
	if err != nil {
		return nil, fmt.Errorf("sandbox state %s: %w", path, err)
	}
	s.DB = db
	return s, nil
}

// Close closes the file and removes it when it was a temporary one.
func (s *Store) Close() error {
	err := s.DB.Close()
	if s.remove != "" {
		err = errors.Join(err, os.RemoveAll(s.remove))
	}
	return err
}

// Buckets creates the named buckets (nested paths split by "/" are not
// supported: one level is enough for every area).
func (s *Store) Buckets(names ...string) error {
	return s.DB.Update(func(tx *bolt.Tx) error {
		for _, n := range names {
			if _, err := tx.CreateBucketIfNotExists([]byte(n)); err != nil {
				return fmt.Errorf("bucket %s: %w", n, err)
			}
		}
		return nil
	})
}

// Put stores v as JSON under key in bucket.
func Put(tx *bolt.Tx, bucket, key string, v any) error {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return fmt.Errorf("bucket %s does not exist", bucket)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), raw)
}

// Get reads the JSON under key in bucket into v; ErrNotFound when absent.
func Get(tx *bolt.Tx, bucket, key string, v any) error {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return fmt.Errorf("bucket %s does not exist", bucket)
	}
	raw := b.Get([]byte(key))
	if raw == nil {
		return ErrNotFound
	}
	return json.Unmarshal(raw, v)
}

// Each calls fn with every key and raw value of bucket, in key order, until
// fn returns an error.
func Each(tx *bolt.Tx, bucket string, fn func(key string, raw []byte) error) error {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return fmt.Errorf("bucket %s does not exist", bucket)
	}
	return b.ForEach(func(k, v []byte) error { return fn(string(k), v) })
}

// EachJSON decodes every value of bucket into a T and calls fn with its key,
// in key order, until fn returns an error; a value that does not decode stops
// the walk with an error naming its key.
func EachJSON[T any](tx *bolt.Tx, bucket string, fn func(key string, v *T) error) error {
	return Each(tx, bucket, func(key string, raw []byte) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s %s: %w", bucket, key, err)
		}
		return fn(key, &v)
	})
}

// Delete removes key from bucket; a missing key is not an error.
func Delete(tx *bolt.Tx, bucket, key string) error {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return fmt.Errorf("bucket %s does not exist", bucket)
	}
	return b.Delete([]byte(key))
}
