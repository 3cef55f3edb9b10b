package partnerapi

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/payportal/portal/internal/drafts"
)

// schemaPaths lists the JSON paths of a schema's values ("business/address/city"),
// owners' values under "owners/*".
func schemaPaths(t *testing.T, s *openapi3.SchemaRef, prefix string, out map[string]bool) {
	t.Helper()
	if s.Value.Type.Is("array") {
		schemaPaths(t, s.Value.Items, prefix+"*/", out)
		return
	}
	if !s.Value.Type.Is("object") {
		out[strings.TrimSuffix(prefix, "/")] = true
		return
	}
	if s.Value.AdditionalProperties.Has == nil || *s.Value.AdditionalProperties.Has {
		t.Errorf("%s: an object schema must be closed (additionalProperties: false)", prefix)
	}
	for name, p := range s.Value.Properties {
		schemaPaths(t, p, prefix+name+"/", out)
	}
}

// registryPaths are the JSON paths the field registry gives, as read and as written.
func registryPaths() (written, read map[string]bool) {
	written, read = map[string]bool{}, map[string]bool{}
	for _, f := range applicationFields() {
		path := strings.Join(f.Path, "/")
		if f.Owner {
			path = "owners/*/" + path
		}
		written[path] = true
		if f.Sensitive {
			path += last4Suffix
		}
		read[path] = true
	}
	return written, read
}

// TestDocumentHoldsTheFieldRegistry: every field of the drafts' registry is in the
// document's application schemas, under the name the API reads and writes, and the
// schemas hold nothing else of the draft.
func TestDocumentHoldsTheFieldRegistry(t *testing.T) {
	t.Parallel()
	doc, err := LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	written, read := registryPaths()
	input := map[string]bool{}
	schemaPaths(t, doc.Components.Schemas["ApplicationInput"], "", input)
	output := map[string]bool{}
	schemaPaths(t, doc.Components.Schemas["Application"], "", output)
	beside := func(set map[string]bool, extra ...string) map[string]bool {
		out := map[string]bool{}
		for k := range set {
			if !slices.Contains(extra, k) {
				out[k] = true
			}
		}
		return out
	}
	compare := func(what string, doc, registry map[string]bool) {
		for p := range registry {
			if !doc[p] {
				t.Errorf("%s: the registry's field %q is missing from the document", what, p)
			}
		}
		for p := range doc {
			if !registry[p] {
				t.Errorf("%s: the document's %q is not a field of the registry", what, p)
			}
		}
	}
	compare("ApplicationInput", beside(input, "ownerId", "pricingModelId", "owners/*/id"), written)
	compare("Application", beside(output, "id", "ownerId", "version", "state", "stateLabel", "status", "processorStatus",
		"legalName", "dba", "createdAt", "updatedAt", "pricingModelId", "submittedAt", "linkedAt", "openedAt", "owners/*/id"), read)
	for _, name := range []string{"Problem", "Application", "ApplicationList", "Checklist", "Submission", "Handoff", "DocumentList", "MerchantList", "TransactionList", "PricingModelList"} {
		schemaPaths(t, doc.Components.Schemas[name], name+"/", map[string]bool{})
	}
}

// TestPointersNameTheRegistrysFields: the JSON pointer of every registry field's
// message is the field's place in the document.
func TestPointersNameTheRegistrysFields(t *testing.T) {
	t.Parallel()
	written, _ := registryPaths()
	for _, name := range drafts.Leaves() {
		if strings.HasSuffix(name, ".id") {
			continue
		}
		ptr := strings.TrimPrefix(pointerOf(name), "/")
		ptr = strings.Replace(ptr, "owners/0/", "owners/*/", 1)
		if !written[ptr] {
			t.Errorf("%s: pointer %q names no field of the document", name, ptr)
		}
	}
}

// TestGeneratedClientIsCurrent regenerates the client from the document and compares:
// run `go generate ./internal/partnerapi/client` after changing the document.
func TestGeneratedClientIsCurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds oapi-codegen")
	}
	dir := t.TempDir()
	cfg, err := os.ReadFile("client/oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("output: client.gen.go"), []byte("output: "+dir+"/client.gen.go"), 1)
	if err := os.WriteFile(dir+"/config.yaml", cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", dir+"/config.yaml", "../contract/openapi.yaml")
	cmd.Dir = "client"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, out)
	}
	fresh, err := os.ReadFile(dir + "/client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("client/client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatal("internal/partnerapi/client is older than the OpenAPI document: run go generate ./internal/partnerapi/client")
	}
}
