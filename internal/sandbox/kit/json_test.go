package kit_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// pan is a card number a careless client might send in a broken body: no
// refusal may echo it.
const pan = "4111111111111111"

func TestBodyRules(t *testing.T) {
	for _, tt := range []struct {
		name        string
		rules       kit.Body
		contentType string
		body        string
		into        func() any
		status      int    // 0: accepted
		message     string // the refusal says this
	}{
		{"object", kit.Body{Type: kit.JSONType}, "application/json; charset=utf-8", `{"a": 1.50}`, newMap, 0, ""},
		{"form type refused", kit.Body{Type: kit.JSONType}, "application/x-www-form-urlencoded", `{}`, newMap, 415, "Content-Type must be application/json"},
		{"missing type refused", kit.Body{Type: kit.JSONType}, "", `{}`, newMap, 415, "application/json"},
		{"missing type accepted if sent rule", kit.Body{Type: kit.JSONTypeIfSent}, "", `{}`, newMap, 0, ""},
		{"text/json accepted if sent rule", kit.Body{Type: kit.JSONTypeIfSent}, "text/json", `{}`, newMap, 0, ""},
		{"any type for the admin API", kit.Body{}, "application/x-www-form-urlencoded", `{"by": "2m"}`, newStrict, 0, ""},
		{"not JSON", kit.Body{}, "", `{"number": ` + pan + `x}`, newMap, 400, "not valid JSON (at byte"},
		{"cut short", kit.Body{}, "", `{"number": "` + pan, newMap, 400, "not valid JSON: it ends too soon"},
		{"empty", kit.Body{}, "", ``, newMap, 400, "empty"},
		{"empty allowed", kit.Body{MayBeEmpty: true}, "", ` `, newStrict, 0, ""},
		{"two values", kit.Body{}, "", `{} {}`, newMap, 400, "one JSON object"},
		{"array for an object", kit.Body{}, "", `[1]`, newMap, 400, "must be a JSON object"},
		{"null for an object", kit.Body{}, "", `null`, newMap, 400, "must be a JSON object"},
		{"wrong type of a member", kit.Body{Strict: true}, "", `{"count": "` + pan + `"}`, newStrict, 400, "count: must be a JSON number"},
		{"unknown member", kit.Body{Strict: true}, "", `{"byy": "2m"}`, newStrict, 400, "byy: unknown field"},
		{"unknown member allowed", kit.Body{}, "", `{"byy": "2m"}`, newStrict, 0, ""},
		{"too large", kit.Body{}, "", `{"a": "` + strings.Repeat("x", kit.MaxBody) + `"}`, newMap, 413, "larger than 1048576 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tt.body))
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			err := tt.rules.Read(httptest.NewRecorder(), r, tt.into())
			var be *kit.BodyError
			switch {
			case tt.status == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.status == 0:
				return
			case !errors.As(err, &be):
				t.Fatalf("err = %v, want a *kit.BodyError", err)
			}
			if be.Status != tt.status || !strings.Contains(be.Message, tt.message) {
				t.Errorf("%d %q, want %d with %q", be.Status, be.Message, tt.status, tt.message)
			}
			if strings.Contains(be.Message, "json:") || strings.Contains(be.Message, "invalid character") ||
				strings.Contains(be.Message, pan) || strings.Contains(be.Message, "Go ") {
				t.Errorf("the refusal quotes the decoder or the body: %q", be.Message)
			}
		})
	}
}

func newMap() any { return &map[string]any{} }

// strictTarget is an admin body's shape.
type strictTarget struct {
	By    string `json:"by"`
	Count int    `json:"count"`
}

func newStrict() any { return &strictTarget{} }
