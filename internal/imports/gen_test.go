package imports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/imports"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// header is the template's header: the generated files use it as it is.
func header() []string { return imports.TemplateHeader() }

// goodRow is a merchant that passes every rule of the form; i makes its TIN, SSN,
// names and e-mail unique.
func goodRow(i int) map[string]string {
	return map[string]string{
		"business.legal_name":          fmt.Sprintf("Merchant %05d LLC", i),
		"business.dba":                 fmt.Sprintf("Shop %05d", i),
		"business.entity_type":         "llc",
		"business.tin":                 fmt.Sprintf("12-%07d", 1000000+i),
		"business.incorporation_date":  "2015-06-01",
		"business.incorporation_state": "CA",
		"business.address.line1":       fmt.Sprintf("%d Market Street", 100+i),
		"business.address.city":        "San Francisco",
		"business.address.state":       "CA",
		"business.address.postal_code": "94105",
		"business.phone":               "(415) 555-0100",
		"business.email":               fmt.Sprintf("owner%05d@merchant.example", i),
		"business.mcc":                 "5812",
		"business.years_in_business":   "4",
		"business.monthly_volume":      "25000.00",
		"business.average_ticket":      "35.50",
		"business.highest_ticket":      "400",
		"owners.0.first_name":          "Jo",
		"owners.0.last_name":           fmt.Sprintf("Owner%05d", i),
		"owners.0.title":               "Managing member",
		"owners.0.ownership_pct":       "100",
		"owners.0.date_of_birth":       "1980-02-03",
		"owners.0.ssn":                 fmt.Sprintf("%03d-%02d-%04d", 101+i/9000, 10+(i/90)%90, 1000+i%9000),
		"bank.holder_name":             fmt.Sprintf("Merchant %05d LLC", i),
		"bank.routing_number":          "011401533",
		"bank.account_number":          fmt.Sprintf("9876%06d", i),
		"bank.account_type":            "checking",
		"contact.name":                 "Jo Owner",
		"contact.email":                fmt.Sprintf("contact%05d@merchant.example", i),
	}
}

// breakages spoil a good row in the ways people do; each names the column at fault.
var breakages = []struct {
	column string
	spoil  func(map[string]string)
}{
	{"business.tin", func(r map[string]string) { r["business.tin"] = "12-34" }},
	{"bank.routing_number", func(r map[string]string) { r["bank.routing_number"] = "123456789" }},
	{"business.legal_name", func(r map[string]string) { r["business.legal_name"] = "" }},
	{"contact.email", func(r map[string]string) { r["contact.email"] = "not an address" }},
	{"business.incorporation_date", func(r map[string]string) { r["business.incorporation_date"] = "2999-01-01" }},
	{"business.address.state", func(r map[string]string) { r["business.address.state"] = "XX" }},
	{"owners.0.ssn", func(r map[string]string) { r["owners.0.ssn"] = "666-12-3456" }},
	{"business.mcc", func(r map[string]string) { r["business.mcc"] = "58" }},
	{"owners.0.date_of_birth", func(r map[string]string) { r["owners.0.date_of_birth"] = "2020-01-01" }},
	{"bank.account_number", func(r map[string]string) { r["bank.account_number"] = "12" }},
}

// generated is a generated file and what the test expects of it.
type generated struct {
	CSV []byte
	// Bad maps the row number (a spreadsheet's: the header is row 1) of each spoiled
	// row to the column at fault; Good lists the good rows' legal names.
	Bad  map[int]string
	Good []string
}

// generate writes n rows, every badEvery-th of them spoiled (0: none).
func generate(n, badEvery int) generated { return generateFrom(0, n, badEvery) }

// generateFrom is generate with merchants numbered from first, so that files made
// with different firsts share no merchant.
func generateFrom(first, n, badEvery int) generated {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	h := header()
	_ = w.Write(h)
	g := generated{Bad: map[int]string{}}
	for i := range n {
		row := goodRow(first + i)
		number := i + 2
		if badEvery > 0 && i%badEvery == badEvery-1 {
			b := breakages[(i/badEvery)%len(breakages)]
			b.spoil(row)
			g.Bad[number] = b.column
		} else {
			g.Good = append(g.Good, row["business.legal_name"])
		}
		rec := make([]string, len(h))
		for j, col := range h {
			rec[j] = row[col]
		}
		_ = w.Write(rec)
	}
	w.Flush()
	g.CSV = buf.Bytes()
	return g
}

// upload posts a file as the page's script does: multipart, the CSRF token in a
// header, asking for JSON. It returns the status and the batch's path.
func upload(t testing.TB, c *apptest.Client, owner string, name string, file []byte) (int, string) {
	t.Helper()
	if c.CSRF() == "" {
		c.Get("/imports")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if owner != "" {
		_ = mw.WriteField("owner_id", owner)
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(file)
	_ = mw.Close()
	res := c.Do(http.MethodPost, "/imports", &body, http.Header{
		"Content-Type": {mw.FormDataContentType()}, "X-Csrf-Token": {c.CSRF()}, "Accept": {"application/json"},
	})
	if res.Status != http.StatusCreated {
		return res.Status, res.Body
	}
	loc := strings.TrimSuffix(strings.SplitN(res.Body, `"location":"`, 2)[1], "\"}\n")
	return res.Status, strings.TrimSuffix(loc, `"}`)
}

func batchID(t testing.TB, path string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(strings.TrimPrefix(path, "/imports/"))
	if err != nil {
		t.Fatalf("batch path %q: %v", path, err)
	}
	return id
}

func count(t testing.TB, env *apptest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// batchStatus reads a batch's state.
func batchStatus(t testing.TB, env *apptest.Env, id uuid.UUID) string {
	t.Helper()
	var s string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT status FROM import_batches WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// readCSV parses a downloaded CSV.
func readCSV(t testing.TB, body string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil && err != io.EOF {
		t.Fatalf("read CSV: %v\n%s", err, body)
	}
	return recs
}

func rep(t testing.TB, env *apptest.Env, email string) (*models.User, *apptest.Client) {
	t.Helper()
	return env.SignedIn(t, email, models.RoleSalesRep)
}

// newMultipart writes a form with fields and a file, and returns its content type.
func newMultipart(body *bytes.Buffer, fields map[string]string, file []byte) string {
	mw := multipart.NewWriter(body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "f.csv")
	_, _ = fw.Write(file)
	_ = mw.Close()
	return mw.FormDataContentType()
}
