package keys

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// A table of the tests' own, with one column of each form: a sealed secret, a JSON
// document holding sealed values (and text that only looks like one), and a blind index of
// the secret.
const exampleTable = `CREATE TABLE key_examples (
	id        uuid PRIMARY KEY,
	secret    text,
	doc       jsonb,
	secret_ix text)`

func exampleColumns() []Column {
	id := []string{"id"}
	aad := func(k Key) string { return "example:" + k[0] }
	return []Column{
		SealedColumn("key_examples", "secret", id, aad),
		DocumentColumn("key_examples", "doc", id,
			func(ring *fieldcrypt.KeyRing, k Key, v string) (string, error) {
				return mapDoc(v, func(name, s string) (string, error) { return ring.Decrypt(s, aad(k)+":"+name) })
			},
			func(ring *fieldcrypt.KeyRing, k Key, v string) (string, error) {
				return mapDoc(v, func(name, s string) (string, error) { return ring.Reencrypt(s, aad(k)+":"+name) })
			}),
		IndexColumn("key_examples", "secret_ix", id, "secret", func(ring *fieldcrypt.KeyRing, k Key, from string) (string, error) {
			plain, err := ring.Decrypt(from, aad(k))
			return ring.BlindIndex("example", plain), err
		}),
	}
}

// mapDoc applies f to the sealed fields of an example document (those named sealed_*).
func mapDoc(v string, f func(name, s string) (string, error)) (string, error) {
	var doc map[string]string
	if err := json.Unmarshal([]byte(v), &doc); err != nil {
		return "", err
	}
	for name, s := range doc {
		if strings.HasPrefix(name, "sealed_") {
			out, err := f(name, s)
			if err != nil {
				return "", err
			}
			doc[name] = out
		}
	}
	b, err := json.Marshal(doc)
	return string(b), err
}

type fixture struct {
	db   *database.DB
	keys map[string][]byte
	ids  []uuid.UUID
}

func newFixture(t *testing.T, rows int) *fixture {
	t.Helper()
	f := &fixture{db: testdb.New(t), keys: map[string][]byte{"k1": randomKey(), "k2": randomKey()}}
	if _, err := f.db.Pool.Exec(context.Background(), exampleTable); err != nil {
		t.Fatal(err)
	}
	ring := f.ring(t, "k1", "k1")
	for i := range rows {
		id := uuid.New()
		f.ids = append(f.ids, id)
		f.write(t, ring, id, fmt.Sprintf("secret %d", i%3)) // equal secrets, for the index
	}
	// A row holding nothing sealed: NULL in every column.
	if _, err := f.db.Pool.Exec(context.Background(), `INSERT INTO key_examples (id) VALUES ($1)`, uuid.New()); err != nil {
		t.Fatal(err)
	}
	return f
}

// write stores a row sealed under the ring's active key.
func (f *fixture) write(t *testing.T, ring *fieldcrypt.KeyRing, id uuid.UUID, secret string) {
	t.Helper()
	aad := "example:" + id.String()
	sealed, _ := ring.Encrypt(secret, aad)
	inner, _ := ring.Encrypt("inner "+secret, aad+":sealed_note")
	doc, _ := json.Marshal(map[string]string{"sealed_note": inner, "website": "v1.example.com", "plain": "hello"})
	_, err := f.db.Pool.Exec(context.Background(), `INSERT INTO key_examples (id, secret, doc, secret_ix) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret, doc = EXCLUDED.doc, secret_ix = EXCLUDED.secret_ix`,
		id, sealed, string(doc), ring.BlindIndex("example", secret))
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) ring(t *testing.T, active string, ids ...string) *fieldcrypt.KeyRing {
	t.Helper()
	keys := map[string][]byte{}
	for _, id := range ids {
		keys[id] = f.keys[id]
	}
	ring, err := fieldcrypt.NewKeyRing(active, keys)
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

func (f *fixture) service(ring *fieldcrypt.KeyRing, batch int) *Service {
	return New(Deps{Pool: f.db.Pool, Ring: ring, Columns: exampleColumns(), Batch: batch})
}

func randomKey() []byte {
	b := make([]byte, fieldcrypt.KeySize)
	_, _ = rand.Read(b)
	return b
}

// under counts the values under keyID, over every place.
func under(t *testing.T, s *Service, keyID string) int {
	t.Helper()
	tallies, err := s.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Totals(tallies)[keyID]
}

func TestCountFindsEveryFormAndNotLookalikes(t *testing.T) {
	f := newFixture(t, 4)
	s := f.service(f.ring(t, "k1", "k1"), 0)
	tallies, err := s.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tallies {
		// One sealed value per row in each place: "v1.example.com" is not one.
		if len(tl.ByKey) != 1 || tl.ByKey["k1"] != 4 {
			t.Errorf("%s: %v, want 4 under k1", tl.Place, tl.ByKey)
		}
	}
}

func TestRotateResealsEverythingAndResumes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 7)
	both := f.service(f.ring(t, "k2", "k1", "k2"), 2)
	before := f.plaintexts(t, both)

	// Cut short after the second batch: what was done stays done and readable.
	cut, cancel := context.WithCancel(ctx)
	batches := 0
	_, err := both.Rotate(cut, func(p Progress) {
		if p.Done > 0 {
			if batches++; batches == 2 {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("rotation cut short: %v", err)
	}
	if k1, k2 := under(t, both, "k1"), under(t, both, "k2"); k2 == 0 || k1 == 0 || k1+k2 != 3*7 {
		t.Fatalf("after the cut: %d under k1, %d under k2", k1, k2)
	}
	if got := f.plaintexts(t, both); !equalMaps(got, before) {
		t.Fatalf("after the cut the values read %v, want %v", got, before)
	}

	// Run again: it resumes, and finishes.
	var last Progress
	done, err := both.Rotate(ctx, func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done[0].Done == 0 || done[0].Done == 7 || last.Done != last.Total {
		t.Errorf("the resumed rotation re-sealed %v (last progress %v), want only the rows left", done, last)
	}
	if n := under(t, both, "k1"); n != 0 {
		t.Fatalf("%d values still under k1", n)
	}
	// Without k1 every value still reads the same, and equal secrets share an index.
	only2 := f.service(f.ring(t, "k2", "k2"), 0)
	if got := f.plaintexts(t, only2); !equalMaps(got, before) {
		t.Fatalf("after the rotation the values read %v, want %v", got, before)
	}
	var same int
	if err := f.db.Pool.QueryRow(ctx, `SELECT count(*) FROM key_examples WHERE secret_ix = $1`,
		only2.Ring().BlindIndex("example", "secret 1")).Scan(&same); err != nil || same != 2 {
		t.Errorf("%d rows found by the index of \"secret 1\" under k2, want 2 (%v)", same, err)
	}
	if found, err := FindSealed(ctx, f.db.Pool, "k1"); err != nil || len(found) != 0 {
		t.Errorf("the schema still holds values under k1: %v (%v)", found, err)
	}
}

// A row the portal writes between a batch's read and its write keeps what the portal
// wrote: the rotation's write is conditional on the row holding what it read.
func TestRotateKeepsWhatThePortalWroteMeanwhile(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 3)
	ring := f.ring(t, "k2", "k1", "k2")
	s := f.service(ring, 10)
	tables, err := s.tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, _, err := s.nextChunk(ctx, tables[0], "k2", nil)
	if err != nil || len(rows) != 3 {
		t.Fatalf("read %d rows: %v", len(rows), err)
	}
	changed := uuid.MustParse(rows[1].key[0])
	f.write(t, ring, changed, "typed meanwhile")
	n, err := s.resealRows(ctx, tables[0], rows)
	if err != nil || n != 2 {
		t.Fatalf("wrote %d rows, want 2 (the third changed meanwhile): %v", n, err)
	}
	got := f.plaintexts(t, s)
	if v := got["key_examples.secret/"+changed.String()]; v != "typed meanwhile" {
		t.Errorf("the row written meanwhile reads %q", v)
	}
	if _, err := s.Rotate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := under(t, s, "k1"); n != 0 {
		t.Errorf("%d values still under k1", n)
	}
}

// plaintexts reads every value back: place/row → plaintext.
func (f *fixture) plaintexts(t *testing.T, s *Service) map[string]string {
	t.Helper()
	out := map[string]string{}
	_, err := s.Verify(context.Background(), func(place string, key Key, plain string) {
		// An index reads as itself, which a rotation changes; Verify recomputes it.
		if !strings.HasSuffix(place, "_ix") {
			out[place+"/"+strings.Join(key, ",")] = plain
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestCheckRefusesAMissingKeyUntilNothingIsUnderIt(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 2)
	if err := f.service(f.ring(t, "k1", "k1"), 0).Check(ctx); err != nil {
		t.Fatalf("the first start: %v", err)
	}
	// k1 removed too early: refused, naming the key and each place holding values.
	err := f.service(f.ring(t, "k2", "k2"), 0).Check(ctx)
	var missing *MissingKeyError
	if !errors.As(err, &missing) || len(missing.Missing) != 1 || missing.Missing[0].KeyID != "k1" {
		t.Fatalf("Check without k1: %v", err)
	}
	for _, want := range []string{`"k1"`, "key_examples.secret (2)", "key_examples.doc (2)", "key_examples.secret_ix (2)", "portal keys rotate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %s: %v", want, err)
		}
	}
	// After a rotation the same ring starts, and k1 is recorded as removed.
	both := f.service(f.ring(t, "k2", "k1", "k2"), 0)
	if _, err := both.Rotate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	only2 := f.service(f.ring(t, "k2", "k2"), 0)
	if err := only2.Check(ctx); err != nil {
		t.Fatalf("Check without k1 after the rotation: %v", err)
	}
	known, err := only2.Known(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 2 || known[0].ID != "k1" || known[0].RemovedAt == nil || known[0].ActivatedAt == nil ||
		known[1].ID != "k2" || !known[1].Active || known[1].ActivatedAt == nil {
		t.Errorf("known keys: %+v", known)
	}
}

// The first start with the key_ring table looks at the data itself: values under a key
// that no ring has ever been recorded with are found too.
func TestCheckFindsKeysNeverRecorded(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 1)
	err := f.service(f.ring(t, "k2", "k2"), 0).Check(ctx)
	var missing *MissingKeyError
	if !errors.As(err, &missing) || missing.Missing[0].KeyID != "k1" {
		t.Fatalf("Check of data under an unrecorded key: %v", err)
	}
}
