package dashboard

import (
	"net/url"
	"testing"

	"github.com/payportal/portal/internal/validation"
)

// FuzzBindListForm binds any query string: it never panics, and whatever it passes on to
// the database is text (the search is one line of valid UTF-8 of at most 100 characters).
func FuzzBindListForm(f *testing.F) {
	for _, seed := range []string{
		"q=%00", "q=%FF%FE", "q=blue+fern&status=draft&sort=-name", "from=2026-02-30&to=2025-01-01",
		"owner=not-a-uuid&date=created&deleted=1", "q=" + string(make([]byte, 300)), "sort=%00&status=%0A",
		"after=6f1c2a5e-0000-4000-8000-000000000000&before=x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		values, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		form, q := BindListForm(values)
		if !validation.IsText(q.Search) || validation.TooLong(q.Search, maxSearchLength) {
			t.Fatalf("search %q reaches the query", q.Search)
		}
		if form.Malformed && len(form.Errors) == 0 {
			t.Fatal("a malformed form without a message")
		}
		_ = form.Values().Encode()
	})
}
