package partnerapi

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
)

// FuzzReadApplication reads any body as an application's create and merge patch, and
// applies what it reads to a draft: nothing panics, a refusal is always a problem of
// status 4xx with a pointer for each value, and what is accepted is text the drafts'
// rules then check.
func FuzzReadApplication(f *testing.F) {
	seeds := []string{
		`{"business": {"legalName": "Blue Fern LLC", "tin": "12-3456789", "address": {"city": "Oakland"}}}`,
		`{"owners": [{"firstName": "Jane", "ssn": "234-56-6789", "isControlPerson": true}, {}], "otherOwnersBelow25": true}`,
		`{"owners": [{"id": "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e", "lastName": null}]}`,
		`{"business": null, "bank": {"fromMerchant": false, "accountNumber": "000123456789"}, "notes": null}`,
		`{"ownerId": "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e", "pricingModelId": null}`,
		`{"business": {"legalName": 12, "dba": ["x"], "email": {"a": 1}}}`,
		`{"business": {"legalName": "Blue\u0000Fern"}}`,
		`{"owners": {"firstName": "Jane"}}`,
		`{"owners": [1, "x", null, []]}`,
		`{"a/b~c": 1}`,
		`{"business": {"address": "1 Main St"}}`,
		"{\"notes\": \"caf\xe9\"}",
		`{"business": {"legalName": "x"`,
		`[]`, `null`, `"x"`, `{} {}`, ``,
		strings.Repeat(`{"business":`, 200) + `{}` + strings.Repeat(`}`, 200),
	}
	for _, s := range seeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, create bool) {
		obj, err := parseObject(body)
		if err != nil {
			checkProblem(t, err, false)
			return
		}
		in, err := readApplication(obj, create)
		if err != nil {
			checkProblem(t, err, true)
			return
		}
		d := drafts.Draft{Owners: []drafts.Owner{{ID: "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e", SSN: "234-56-6789"}}}
		set, errs := in.Change.Edit.Apply(&d, uuid.NewString)
		for field := range errs {
			if pointerOf(field) == "" {
				t.Fatalf("no pointer for %q", field)
			}
		}
		for _, field := range set {
			if _, err := d.Get(field); err != nil {
				t.Fatalf("set a field that is not one: %q", field)
			}
		}
		for field := range d.Validate(time.Now()) {
			if !strings.HasPrefix(pointerOf(field), "/") {
				t.Fatalf("bad pointer for %q", field)
			}
		}
	})
}

func checkProblem(t *testing.T, err error, withPointers bool) {
	t.Helper()
	var p *Problem
	if !errors.As(err, &p) || p.Status < 400 || p.Status >= 500 || p.Code == "" {
		t.Fatalf("not a 4xx problem: %v", err)
	}
	if withPointers && len(p.Errors) == 0 {
		t.Fatalf("a refusal names no value: %+v", p)
	}
	for _, e := range p.Errors {
		if !strings.HasPrefix(e.Pointer, "/") || e.Detail == "" {
			t.Fatalf("entry %+v", e)
		}
	}
}

// FuzzRequestFingerprint fingerprints any body as an idempotent request does: nothing
// panics, a multipart body is fingerprinted by its parts whatever its boundary, and a
// broken one is a 400.
func FuzzRequestFingerprint(f *testing.F) {
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nbank_statement\r\n--x--\r\n"))
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nbank"))
	f.Add("multipart/form-data", []byte("--x\r\n"))
	f.Add("application/json", []byte(`{"notes": "x"}`))
	f.Add("", []byte{0, 1, 2})
	f.Add("text/plain; charset=\x00", []byte("x"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		h := sha256.New()
		if err := hashBody(h, contentType, bytes.NewReader(body)); err != nil {
			checkProblem(t, err, false)
		}
	})
}

// FuzzCursor decodes any cursor: it is refused or read, never a panic.
func FuzzCursor(f *testing.F) {
	f.Add(encodeCursor("2026-12-05T10:00:00.123456Z 8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e"))
	f.Add("%%%")
	f.Add(encodeCursor("yesterday x"))
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := decodeSinceCursor(s); ok && c == nil {
			t.Fatal("a cursor read as nothing")
		}
	})
}
