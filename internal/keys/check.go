package keys

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// KnownKey is a key as the portal has known it (the key_ring table) and as the ring holds
// it now.
type KnownKey struct {
	ID string
	// AddedAt is when a portal first ran with the key in its ring: its creation date as
	// far as the portal can know (for keys older than the table, its first start).
	AddedAt time.Time
	// ActivatedAt is when a portal first sealed with it; RemovedAt when a portal first
	// started without it and found nothing sealed under it.
	ActivatedAt, RemovedAt *time.Time
	// InRing and Active say what the ring of this process holds.
	InRing, Active bool
}

// Missing is a key the ring lacks that values are still sealed under.
type Missing struct {
	KeyID   string
	Holders []Tally
}

// MissingKeyError refuses to run: values are sealed under keys the ring does not hold, so
// they could not be read.
type MissingKeyError struct{ Missing []Missing }

func (e *MissingKeyError) Error() string {
	var b strings.Builder
	for i, m := range e.Missing {
		if i > 0 {
			b.WriteString("; ")
		}
		places := make([]string, len(m.Holders))
		for j, h := range m.Holders {
			places[j] = fmt.Sprintf("%s (%d)", h.Place, h.ByKey[m.KeyID])
		}
		fmt.Fprintf(&b, "values are sealed under key %q, which PORTAL_ENCRYPTION_KEYS does not hold: %s", m.KeyID, strings.Join(places, ", "))
	}
	b.WriteString(". Put the key back in PORTAL_ENCRYPTION_KEYS (it need not be the active one), run `portal keys rotate`, " +
		"and remove it only once `portal keys status` shows nothing sealed under it")
	return b.String()
}

// Check records the ring's keys (key_ring) and refuses, with a *MissingKeyError naming each
// key and what holds it, when values are sealed under a key the ring lacks. It costs two
// small statements, except the first time a known key is missing from the ring (or the
// first time at all), when it counts what every place of the registry holds by key; a key
// found to hold nothing is marked removed and never looked for again. `portal serve` runs
// it before anything reads a sealed value, and a rotation before it starts.
func (s *Service) Check(ctx context.Context) error {
	now := s.now().UTC()
	var known int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM key_ring`).Scan(&known); err != nil {
		return fmt.Errorf("keys: reading key_ring: %w", err)
	}
	if err := s.record(ctx, now); err != nil {
		return err
	}
	var tallies []Tally
	if known == 0 {
		// The first start with the table (or a database restored from before it): look
		// once for values under keys this ring lacks, and remember those keys.
		var err error
		if tallies, err = s.discover(ctx, now); err != nil {
			return err
		}
	}
	suspects, err := s.suspects(ctx)
	if err != nil || len(suspects) == 0 {
		return err
	}
	if tallies == nil {
		if tallies, err = s.Count(ctx); err != nil {
			return err
		}
	}
	var missing []Missing
	for _, id := range suspects {
		if holders := Holders(tallies, id); len(holders) > 0 {
			missing = append(missing, Missing{KeyID: id, Holders: holders})
			continue
		}
		if _, err := s.pool.Exec(ctx, `UPDATE key_ring SET removed_at = $2 WHERE key_id = $1 AND removed_at IS NULL`, id, now); err != nil {
			return fmt.Errorf("keys: recording the removal of key %s: %w", id, err)
		}
	}
	if len(missing) > 0 {
		return &MissingKeyError{Missing: missing}
	}
	return nil
}

// discover counts what every place holds and records every key found in key_ring.
func (s *Service) discover(ctx context.Context, now time.Time) ([]Tally, error) {
	tallies, err := s.Count(ctx)
	if err != nil {
		return nil, err
	}
	for id := range Totals(tallies) {
		if id == "" {
			continue
		}
		if _, err := s.pool.Exec(ctx, `INSERT INTO key_ring (key_id, added_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, id, now); err != nil {
			return nil, fmt.Errorf("keys: recording key %s: %w", id, err)
		}
	}
	return tallies, nil
}

// suspects are the keys known, not marked removed, and missing from the ring.
func (s *Service) suspects(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT key_id FROM key_ring WHERE removed_at IS NULL AND NOT (key_id = ANY($1)) ORDER BY key_id`, s.ring.KeyIDs())
	if err != nil {
		return nil, fmt.Errorf("keys: reading key_ring: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("keys: reading key_ring: %w", err)
	}
	return ids, nil
}

// record adds the ring's keys to key_ring (a key back in the ring is no longer removed)
// and the active key's first activation; it writes nothing when nothing changed.
func (s *Service) record(ctx context.Context, now time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO key_ring AS k (key_id, added_at, activated_at)
		SELECT id, $2, CASE WHEN id = $3 THEN $2::timestamptz END FROM unnest($1::text[]) AS id
		ON CONFLICT (key_id) DO UPDATE SET removed_at = NULL, activated_at = COALESCE(k.activated_at, EXCLUDED.activated_at)
		WHERE k.removed_at IS NOT NULL OR (k.activated_at IS NULL AND EXCLUDED.activated_at IS NOT NULL)`,
		s.ring.KeyIDs(), now, s.ring.ActiveKeyID())
	if err != nil {
		return fmt.Errorf("keys: recording the ring's keys: %w", err)
	}
	return nil
}

// Known records the ring's keys and lists every key the portal has known, oldest first,
// with what this process's ring holds.
func (s *Service) Known(ctx context.Context) ([]KnownKey, error) {
	if err := s.record(ctx, s.now().UTC()); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT key_id, added_at, activated_at, removed_at FROM key_ring ORDER BY added_at, key_id`)
	if err != nil {
		return nil, fmt.Errorf("keys: reading key_ring: %w", err)
	}
	defer rows.Close()
	ring := s.ring.KeyIDs()
	var out []KnownKey
	for rows.Next() {
		var k KnownKey
		if err := rows.Scan(&k.ID, &k.AddedAt, &k.ActivatedAt, &k.RemovedAt); err != nil {
			return nil, err
		}
		k.InRing, k.Active = slices.Contains(ring, k.ID), k.ID == s.ring.ActiveKeyID()
		out = append(out, k)
	}
	return out, rows.Err()
}
