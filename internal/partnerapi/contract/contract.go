// Package contract holds the partner API's OpenAPI document (openapi.yaml, OpenAPI
// 3.0.3: oapi-codegen, which generates the client the tests drive, reads 3.0 only) and
// serves it as JSON.
package contract

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yaml
var document []byte

// YAML is the document as written.
func YAML() []byte { return document }

// Load parses and validates the document.
func Load() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("load the partner API's document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the partner API's document is not valid: %w", err)
	}
	return doc, nil
}

// JSON is the document as JSON, for /api/v1/openapi.json.
func JSON() ([]byte, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	return doc.MarshalJSON()
}
