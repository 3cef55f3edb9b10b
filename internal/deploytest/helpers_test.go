package deploytest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"testing"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// freeAddr is a loopback address nobody listens on (yet).
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// keyRing is a fresh one-key ring for PORTAL_ENCRYPTION_KEYS.
func keyRing(t testing.TB) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return "deploy:" + base64.StdEncoding.EncodeToString(key)
}

// inProcess builds a portal without workers on the database of vars (opened
// as dbURL, a superuser's, so the test's own connections stay out of the
// replicas' budget): the test seeds through it what pages would take long to
// make.
func inProcess(t testing.TB, vars map[string]string, dbURL string) *app.App {
	t.Helper()
	own := map[string]string{"PORTAL_RUN_WORKERS": "false"}
	cfg, err := config.Load(func(k string) (string, bool) {
		if v, ok := own[k]; ok {
			return v, true
		}
		v, ok := vars[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := database.Open(context.Background(), dbURL, 8, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	a, err := app.Build(context.Background(), cfg, db, slog.New(slog.DiscardHandler), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// createUser makes a user with a password, who signs in in one step.
func createUser(t testing.TB, a *app.App, email string, role models.Role) (*models.User, string) {
	t.Helper()
	password := "correct-horse-" + hex.EncodeToString([]byte(email))[:8]
	u, _, err := a.Auth.CreateUser(context.Background(), auth.NewUser{Email: email, Name: "Rita Rep", Role: role, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	return u, password
}

// samplePDF is a small PDF whose bytes differ every time.
func samplePDF(t testing.TB) []byte {
	t.Helper()
	b := make([]byte, 600)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return []byte("%PDF-1.7\n% " + hex.EncodeToString(b) + "\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
}

// uploadDocument posts a bank statement to an application's documents, as the
// page's plain form does.
func uploadDocument(t testing.TB, c *client, applicationPath string, content []byte) response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("csrf_token", c.token())
	_ = w.WriteField("doc_type", "bank_statement")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="statement.pdf"`)
	h.Set("Content-Type", "application/pdf")
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	_ = w.Close()
	return c.do(http.MethodPost, applicationPath+"/documents", &buf, http.Header{"Content-Type": {w.FormDataContentType()}})
}
