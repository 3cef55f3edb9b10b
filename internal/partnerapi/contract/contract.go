// Package contract holds the partner API's OpenAPI document (openapi.yaml, OpenAPI
// 3.0.3: oapi-codegen, which generates the client the tests drive, reads 3.0 only) and
// serves it as JSON.
//
// The document is checked against OpenAPI by the tests (kin-openapi, in
// partnerapi's tests), not at start: it is embedded, so it cannot change after the
// build, and loading it with kin-openapi cost every start some 40 ms and 3.6 MiB,
// and the library's schemas another 1.7 MiB for the life of the process (issue 27).
package contract

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var document []byte

// YAML is the document as written.
func YAML() []byte { return document }

// JSON is the document as JSON, for /api/v1/openapi.json. Objects' keys come out
// sorted, as kin-openapi wrote them.
func JSON() ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("read the partner API's document: %w", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("the partner API's document as JSON: %w", err)
	}
	return b, nil
}
