package accounts_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"filippo.io/age"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil"
)

// With an object identity, uploaded objects lie encrypted in the object store, and
// ReadObject gives their bytes back.
func TestObjectsEncryptedAtRest(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := newSandbox(t, func(o *sandbox.Options) { o.ObjectDir, o.ObjectIdentity = dir, id })
	appID := s.start(t, nil)
	content := "%PDF-1.7\nMARKER-sandbox-object\n" + strings.Repeat("line\n", 30000)
	_, out := s.call(t, http.MethodPost, "/v2/application/"+appID+"/file", token, map[string]any{
		"fileType": "bankStatement", "name": "s.pdf", "contentLength": strconv.Itoa(len(content)), "contentType": "application/pdf"})
	req, _ := http.NewRequest(http.MethodPut, out["presignedUrl"].(string), strings.NewReader(content))
	req.Header.Set("Content-Type", "application/pdf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
	if hits := testutil.FilesContaining(t, dir, []byte("MARKER-sandbox-object")); len(hits) > 0 {
		t.Fatalf("plaintext object at rest: %v", hits)
	}
	rc, err := s.ReadObject(appID, out["fileId"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, _ := io.ReadAll(rc); string(got) != content {
		t.Fatalf("read back %d bytes, want %d", len(got), len(content))
	}
}
