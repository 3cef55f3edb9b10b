package partnerapi

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/payportal/portal/internal/partnerapi/contract"
)

// LoadContract parses and validates the partner API's document with kin-openapi.
// The portal itself serves the document without it (contract.JSON); the tests
// hold the document to OpenAPI.
func LoadContract() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(contract.YAML())
	if err != nil {
		return nil, fmt.Errorf("load the partner API's document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the partner API's document is not valid: %w", err)
	}
	return doc, nil
}

// withoutFalse is v without the members "required": false, the default.
func withoutFalse(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k != "required" || x != false {
				out[k] = withoutFalse(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutFalse(x)
		}
		return out
	}
	return v
}

// The document served at /api/v1/openapi.json (contract.JSON, read without
// kin-openapi) says what kin-openapi reads in openapi.yaml, value for value.
func TestServedDocumentIsTheContract(t *testing.T) {
	t.Parallel()
	doc, err := LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	want, err := doc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := contract.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	// kin-openapi leaves out what is false by default (required: false).
	if !reflect.DeepEqual(withoutFalse(w), withoutFalse(g)) {
		t.Errorf("the served document differs from kin-openapi's reading of openapi.yaml:\nserved %.400s\nkin-openapi %.400s", got, want)
	}
}
