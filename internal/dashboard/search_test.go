package dashboard

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// searchFixture is the list fixture with phone numbers in two drafts and the processor's id
// on one application.
func searchFixture(t *testing.T) (*listFixture, uuid.UUID) {
	t.Helper()
	f := newListFixture(t)
	ctx := context.Background()
	if err := f.db.WithContext(ctx).Exec(`UPDATE applications SET draft = '{"business": {"phone": "4155550100"}, "contact": {"phone": "+442071838750"}}'
		WHERE id = ?`, f.apps["Acme Hardware Inc"].ID).Error; err != nil {
		t.Fatal(err)
	}
	if err := f.db.WithContext(ctx).Exec(`UPDATE applications SET draft = '{"business": {"phone": "6465550199"}, "contact": {"phone": ""}}'
		WHERE id = ?`, f.apps["Mid Market Ltd"].ID).Error; err != nil {
		t.Fatal(err)
	}
	upstreamID := uuid.New()
	if err := f.db.WithContext(ctx).Exec(`UPDATE applications SET upstream_application_id = ? WHERE id = ?`,
		upstreamID.String(), f.apps["Pure Juice Co"].ID).Error; err != nil {
		t.Fatal(err)
	}
	return f, upstreamID
}

func TestSearchFindsEachKindOfTerm(t *testing.T) {
	t.Parallel()
	f, upstreamID := searchFixture(t)
	tests := []struct {
		name, term string
		want       []string // legal names, most recently updated first
	}{
		{"DBA word", "zephyr", []string{"Zephyr Cycles LLC"}},
		{"start of a DBA word", "zeph", []string{"Zephyr Cycles LLC"}},
		{"legal name", "Cycles", []string{"Zephyr Cycles LLC"}},
		{"legal name, two words in any order", "works bottle", []string{"Bottle Works"}},
		{"contact name", "Pat Pure", []string{"Pure Juice Co"}},
		{"whole e-mail", "zoe@zephyr.example", []string{"Zephyr Cycles LLC"}},
		{"e-mail domain", "bluefern", []string{"Blue Fern Coffee LLC"}},
		{"e-mail local part", "jane", []string{"Blue Fern Coffee LLC"}},
		{"phone as stored", "4155550100", []string{"Acme Hardware Inc"}},
		{"phone as people write it", "(415) 555-0100", []string{"Acme Hardware Inc"}},
		{"phone with country code", "+1 415 555 0100", []string{"Acme Hardware Inc"}},
		{"phone without area code", "555-0100", []string{"Acme Hardware Inc"}},
		{"start of a phone", "646", []string{"Mid Market Ltd"}},
		{"international contact phone", "+44 20 7183 8750", []string{"Acme Hardware Inc"}},
		{"application id", f.apps["Bottle Works"].ID.String(), []string{"Bottle Works"}},
		{"application id in capitals", upperID(f.apps["Bottle Works"].ID), []string{"Bottle Works"}},
		{"processor's id", upstreamID.String(), []string{"Pure Juice Co"}},
		{"not the middle of a word", "ephyr", nil},
		{"every word must match", "zephyr fern", nil},
		{"no letters or digits", "%%% ---", nil},
		{"an unknown id", uuid.NewString(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.svc.List(context.Background(), f.admin, ListQuery{Search: tt.term})
			if err != nil {
				t.Fatal(err)
			}
			if got := legalNames(page); !slices.Equal(got, tt.want) {
				t.Errorf("search %q: got %q, want %q", tt.term, got, tt.want)
			}
		})
	}
}

func upperID(id uuid.UUID) string {
	b := []byte(id.String())
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// A rep's search stays within their own applications, the id too.
func TestSearchKeepsRepsToTheirOwn(t *testing.T) {
	t.Parallel()
	f, upstreamID := searchFixture(t)
	for _, term := range []string{"zephyr", "646", f.apps["Zephyr Cycles LLC"].ID.String(), upstreamID.String()} {
		page, err := f.svc.List(context.Background(), f.rep, ListQuery{Search: term})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Rows) != 0 || page.Total != 0 {
			t.Errorf("rep's search %q found %q", term, legalNames(page))
		}
	}
	page, err := f.svc.List(context.Background(), f.rep, ListQuery{Search: "555-0100"})
	if err != nil {
		t.Fatal(err)
	}
	if got := legalNames(page); !slices.Equal(got, []string{"Acme Hardware Inc"}) {
		t.Errorf("rep's phone search: %q", got)
	}
}

// The Go split of a term and the migration's split of the fields agree: every application
// is found by its own DBA, whatever characters it holds.
func TestSearchFindsAnyDBAByItself(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	dbas := []string{
		"Café Ünïcode GmbH", "O'Brien & Sons", "jane_doe+tag", "Ärger-Straße 5", "Smith/Jones (West)",
		"Tab\tSeparated", "Dots.and.Dashes-Inc", "ÉCOLE 42", "naïve—dash", "日本 商店",
	}
	for _, dba := range dbas {
		if err := f.db.Exec(`INSERT INTO applications (id, owner_id, dba, draft) VALUES (gen_random_uuid(), ?, ?, '{}')`,
			f.other.ID, dba).Error; err != nil {
			t.Fatal(err)
		}
	}
	for _, dba := range dbas {
		page, err := f.svc.List(context.Background(), f.admin, ListQuery{Search: dba})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, r := range page.Rows {
			found = found || r.DBA == dba
		}
		if !found {
			t.Errorf("search %q (words %q) does not find its own application", dba, searchWords(dba))
		}
	}
}

func TestSearchWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		term string
		want []string
	}{
		{"Blue Fern", []string{"blue", "fern"}},
		{"jane.doe@mail.example", []string{"jane", "doe", "mail", "example"}},
		{"blue_fern", []string{"blue_fern"}},
		{"100%", []string{"100"}},
		{"Ärger-Straße", []string{"ärger", "straße"}},
		{"(415) 555-0100", []string{"4155550100"}},
		{"+1 415 555 0100", []string{"4155550100"}},
		{"+44 20 7183 8750", []string{"442071838750"}},
		{"555", []string{"555"}},
		{"12 34", []string{"1234"}},
		{"7 11", []string{"7", "11"}},
		{"%%%", nil},
	}
	for _, tt := range tests {
		if got := searchWords(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("searchWords(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
	if got, want := prefixQuery([]string{"o'brien", "fern"}), `'o''brien':* & 'fern':*`; got != want {
		t.Errorf("prefixQuery = %s, want %s", got, want)
	}
}

// The longest names and e-mail the forms take, in four-byte characters, still fit the
// indexes that include search_words (a B-tree entry holds at most 2,704 bytes).
func TestSearchWordsOfTheLongestFieldsFitTheIndexes(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	// Distinct characters (CJK, four bytes each), which do not compress.
	next := rune(0x20000)
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(next)
			next++
		}
		return b.String()
	}
	id, dba := uuid.New(), word(200)
	if err := f.db.Exec(`INSERT INTO applications (id, owner_id, dba, legal_name, contact_name, contact_email, draft)
		VALUES (?, ?, ?, ?, ?, ?, '{}')`, id, f.rep.ID, dba, word(200), word(100), word(254)).Error; err != nil {
		t.Fatal(err)
	}
	page, err := f.svc.List(context.Background(), f.rep, ListQuery{Search: string([]rune(dba)[:10])})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Rows) != 1 || page.Rows[0].ID != id {
		t.Errorf("search by the start of the DBA: %q", legalNames(page))
	}
}
