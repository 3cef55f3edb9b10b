package accounts

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// FuzzApplicationData sends any body through the decoder and the shape check of PATCH: it
// never panics, and a body it accepts holds only text within the bounds (bounds.go).
func FuzzApplicationData(f *testing.F) {
	for _, seed := range []string{
		`{"business":{"dba":"Blue Fern","monthlyVolume":"45000.00"},"legalEntity":{"yearsInBusiness":6}}`,
		`{"legalEntity":{"name":"Blue\u0000Fern"}}`,
		`{"legalEntity":{"yearsInBusiness":201}}`,
		`{"legalEntity":{"yearsInBusiness":12345678901234567890123}}`,
		`{"business":{"monthlyVolume":"` + strings.Repeat("9", 400) + `"}}`,
		`{"owners":[{"firstName":"Jane","dob":"1900-01-01","percentOwnership":100.5}]}`,
		`{"contact":{"name":"Jane\r\nBcc: x@example.com"}}`,
		`{"owners":[1,2]}`, `[]`, `{"business":null}`, `{`,
	} {
		f.Add([]byte(seed))
	}
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPatch, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		v, err := kit.ReadObject(httptest.NewRecorder(), r)
		if err != nil {
			return
		}
		if apiErr := (shapeChecker{now: now}).check(v, reflect.TypeFor[applicationData](), ""); apiErr != nil {
			return
		}
		walkStrings(v, "", func(path, s string) {
			if msg := textProblem(path, s); msg != "" {
				t.Fatalf("accepted %s = %.40q: %s", path, s, msg)
			}
		})
	})
}

// walkStrings calls fn with every text leaf of decoded JSON and its path.
func walkStrings(v any, path string, fn func(path, s string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkStrings(e, joinPath(path, k), fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, path+"[]", fn)
		}
	case string:
		fn(path, x)
	}
}
