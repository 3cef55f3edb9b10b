package imports_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/testutil/apptest"
)

// A mapping form whose column count is missing, not a number, short, long, negative or
// absurd did not come from the page (or the page is stale): it is answered 400 with a
// message saying what to do, never 500, and the batch keeps waiting for its mapping.
func TestMappingFormWithABadColumnCountIsRefused(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "mapping.rep@example.com")
	file := csvOf(
		[]string{"Company", "Legal Name", "Tax ID"},
		[]string{"Blue Fern", "Blue Fern Coffee LLC", "12-3456789"},
	)
	status, path := upload(t, c, "", "crm-export.csv", file)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, path)
	}
	c.Get(path)
	columns := url.Values{"column.0": {"business.dba"}, "column.1": {"business.legal_name"}, "column.2": {"business.tin"}}
	for _, count := range []string{"", "three", "2", "4", "-1", "-99999999999999999999", "999999999", "1e9"} {
		form := url.Values{}
		for k, v := range columns {
			form[k] = v
		}
		if count != "" {
			form.Set("columns", count)
		}
		res := c.PostForm(path+"/mapping", form)
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "Reload the page") {
			t.Errorf("columns=%q: %d\n%s", count, res.Status, res.Body)
		}
	}
	if got := batchStatus(t, env, batchID(t, path)); got != "mapping" {
		t.Errorf("the batch is %s after refused forms", got)
	}
	form := url.Values{"columns": {"3"}}
	for k, v := range columns {
		form[k] = v
	}
	if res := c.PostForm(path+"/mapping", form); res.Status != http.StatusSeeOther {
		t.Fatalf("the page's own form: %d\n%s", res.Status, res.Body)
	}
}
