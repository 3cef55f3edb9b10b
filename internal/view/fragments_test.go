package view

import (
	"html/template"
	"strings"
	"sync"
	"testing"
	"time"
)

type fragmentRow struct {
	Name   string
	Note   *string
	At     time.Time
	Tags   []string
	Inner  struct{ Deleted bool }
	Amount int
}

// Equal dots give equal keys; any difference anywhere gives another key.
func TestFingerprintTellsEveryDifference(t *testing.T) {
	t.Parallel()
	note, empty := "note", ""
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	base := fragmentRow{Name: "Blue Fern", Note: &note, At: at, Tags: []string{"a", "b"}, Amount: 3}
	variants := map[string]func(r *fragmentRow){
		"name":           func(r *fragmentRow) { r.Name = "Blue Fer" },
		"nil note":       func(r *fragmentRow) { r.Note = nil },
		"empty note":     func(r *fragmentRow) { r.Note = &empty },
		"time":           func(r *fragmentRow) { r.At = at.Add(time.Nanosecond) },
		"zone":           func(r *fragmentRow) { r.At = at.In(time.FixedZone("X", 3600)) },
		"tags joined":    func(r *fragmentRow) { r.Tags = []string{"ab"} },
		"nil tags":       func(r *fragmentRow) { r.Tags = nil },
		"empty tags":     func(r *fragmentRow) { r.Tags = []string{} },
		"nested bool":    func(r *fragmentRow) { r.Inner.Deleted = true },
		"amount":         func(r *fragmentRow) { r.Amount = 4 },
		"name into tags": func(r *fragmentRow) { r.Name, r.Tags = "", []string{"Blue Fern", "a", "b"} },
	}
	key := func(r fragmentRow) string {
		t.Helper()
		k, err := fingerprint("row", r)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	same := base
	same.Tags = []string{"a", "b"}
	if key(base) != key(same) {
		t.Fatal("equal rows have different keys")
	}
	seen := map[string]string{key(base): "base"}
	for name, change := range variants {
		r := base
		change(&r)
		k := key(r)
		if other, dup := seen[k]; dup {
			t.Errorf("%s has the key of %s", name, other)
		}
		seen[k] = name
	}
	if _, err := fingerprint("row", map[string]int{"a": 1}); err == nil {
		t.Error("a map was accepted into a key")
	}
}

// A cached fragment is what the template renders for that dot, for every dot, also
// when many requests render at once.
func TestCachedFragmentsRenderTheirOwnDot(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("").Parse(`{{define "row"}}<td>{{.Name}}</td>{{with .Note}}<td>{{.}}</td>{{end}}{{end}}`))
	var f fragments
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				note := strings.Repeat("x", (i+j)%5)
				row := fragmentRow{Name: "<b>" + string(rune('a'+j%26)), Note: &note}
				got, err := f.render(tmpl, "row", row)
				if err != nil {
					t.Error(err)
					return
				}
				var want strings.Builder
				if err := tmpl.ExecuteTemplate(&want, "row", row); err != nil {
					t.Error(err)
					return
				}
				if string(got) != want.String() {
					t.Errorf("cached %q, rendered %q", got, want.String())
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(f.m); n == 0 || n > 26*5 {
		t.Errorf("%d fragments cached for at most 130 distinct rows", n)
	}
}
