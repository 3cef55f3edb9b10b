package imports_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// waitDone waits for the import job to finish a batch.
func waitDone(t *testing.T, env *apptest.Env, path string) {
	t.Helper()
	id := batchID(t, path)
	testutil.Eventually(t, 2*time.Minute, "the import to finish", func() (bool, string) {
		s := batchStatus(t, env, id)
		return s == "done", "status " + s
	})
}

// A 5,000-row file with 10% bad rows: the preview reports every bad row beside its
// column, the import creates exactly the good rows as drafts of the rep, the rejected
// rows download with why and masked numbers, and importing the file again creates
// nothing new.
func TestImportOfFiveThousandRowsWithTenPercentBad(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner, c := rep(t, env, "importing.rep@example.com")
	file := generate(5000, 10)
	if len(file.Bad) != 500 || len(file.Good) != 4500 {
		t.Fatalf("generated %d bad and %d good rows", len(file.Bad), len(file.Good))
	}

	status, path := upload(t, c, "", "merchants.csv", file.CSV)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, path)
	}
	preview := c.Get(path)
	for _, want := range []string{`data-count="valid">4500<`, `data-count="invalid">500<`, `data-count="duplicate">0<`} {
		if !strings.Contains(preview.Body, want) {
			t.Fatalf("preview lacks %s", want)
		}
	}
	// Every bad row is reported with the column at fault: the rejected-rows file lists
	// them all.
	rejected := c.Get(path + "/rejected.csv")
	if rejected.Status != http.StatusOK || !strings.HasPrefix(rejected.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("rejected rows: %d %s", rejected.Status, rejected.Header.Get("Content-Type"))
	}
	recs := readCSV(t, rejected.Body)
	head := recs[0]
	if len(recs) != 501 || head[0] != "Row" || head[len(head)-1] != "Why it was not imported" {
		t.Fatalf("rejected file: %d lines, header %v", len(recs), head)
	}
	ssnCol, tinCol, accountCol := slices.Index(head, "owners.0.ssn"), slices.Index(head, "business.tin"), slices.Index(head, "bank.account_number")
	masked := regexp.MustCompile(`^(••••( \d{4})?)?$`)
	for _, rec := range recs[1:] {
		n, _ := strconv.Atoi(rec[0])
		column, bad := file.Bad[n]
		if !bad {
			t.Errorf("row %d is rejected but was good: %s", n, rec[len(rec)-1])
			continue
		}
		if why := rec[len(rec)-1]; !strings.HasPrefix(why, column+":") && !strings.Contains(why, " "+column+":") {
			t.Errorf("row %d: the reason %q does not name the column %s", n, why, column)
		}
		for _, col := range []int{ssnCol, tinCol, accountCol} {
			if !masked.MatchString(rec[col]) {
				t.Errorf("row %d: %s is not masked: %q", n, head[col], rec[col])
			}
		}
		delete(file.Bad, n)
	}
	if len(file.Bad) != 0 {
		t.Errorf("%d bad rows are not reported", len(file.Bad))
	}

	if res := c.PostForm(path+"/import", url.Values{"on_duplicate": {"skip"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", res.Status, res.Body)
	}
	waitDone(t, env, path)
	if n := count(t, env, `SELECT count(*) FROM applications WHERE owner_id = $1 AND status = 'draft' AND deleted_at IS NULL`, owner.ID); n != 4500 {
		t.Fatalf("%d drafts imported, want 4500", n)
	}
	var names []string
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT legal_name FROM applications WHERE owner_id = $1 ORDER BY legal_name`, owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if !slices.Equal(names, file.Good) {
		t.Fatalf("the imported drafts are not exactly the good rows")
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE action = 'created' AND details->>'batch' = $1`, batchID(t, path).String()); n != 4500 {
		t.Errorf("%d audit entries, want 4500", n)
	}
	if n := count(t, env, `SELECT count(*) FROM applications WHERE owner_id = $1 AND (tin_index IS NULL OR tin_index = '')`, owner.ID); n != 0 {
		t.Errorf("%d imported drafts without a TIN index", n)
	}
	done := c.Get(path)
	if !strings.Contains(done.Body, `data-count="created">4500<`) || !strings.Contains(done.Body, `data-count="rejected">500<`) {
		t.Errorf("the finished import does not show its outcome")
	}

	// The same file again: every good row is already there.
	status, again := upload(t, c, "", "merchants.csv", file.CSV)
	if status != http.StatusCreated {
		t.Fatalf("second upload: %d %s", status, again)
	}
	preview = c.Get(again)
	if !strings.Contains(preview.Body, `data-count="valid">0<`) || !strings.Contains(preview.Body, `data-count="duplicate">4500<`) {
		t.Fatalf("second preview does not find the duplicates")
	}
	if res := c.PostForm(again+"/import", url.Values{"on_duplicate": {"skip"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("second start: %d", res.Status)
	}
	waitDone(t, env, again)
	if n := count(t, env, `SELECT count(*) FROM applications`); n != 4500 {
		t.Errorf("%d applications after importing the file twice, want 4500", n)
	}
	if n := count(t, env, `SELECT count(*) FROM import_rows WHERE batch_id = $1 AND outcome = 'skipped'`, batchID(t, again)); n != 4500 {
		t.Errorf("%d rows skipped, want 4500", n)
	}
}
