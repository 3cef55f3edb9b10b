package documents_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// HEAD of a download or preview answers its headers with the exact length and no body;
// another rep's document stays 404 for HEAD too.
func TestHeadOfADownload(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	other, _ := signIn(t, env, "other@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	base := documents.SectionPath(a.ID)
	if res := upload(t, c, base, "bank_statement", "statement.pdf", samplePDF); res.Status != http.StatusCreated {
		t.Fatalf("upload: %d", res.Status)
	}
	d := documentsOf(t, env, a.ID)[0]
	for _, kind := range []string{"download", "preview"} {
		path := base + "/" + d.ID.String() + "/" + kind
		res := c.Do(http.MethodHead, path, nil, nil)
		if res.Status != http.StatusOK || res.Body != "" || res.Header.Get("Content-Length") != strconv.Itoa(len(samplePDF)) ||
			res.Header.Get("Content-Type") != documents.ContentTypePDF {
			t.Errorf("HEAD %s: %d, %d bytes of body, headers %v", kind, res.Status, len(res.Body), res.Header)
		}
		if res := other.Do(http.MethodHead, path, nil, nil); res.Status != http.StatusNotFound {
			t.Errorf("HEAD %s by another rep: %d, want 404", kind, res.Status)
		}
	}
}

// A download's suggested name takes the extension of the type the bytes really are.
func TestDownloadNameFollowsTheStoredType(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	base := documents.SectionPath(a.ID)
	if res := upload(t, c, base, "bank_statement", "statement.html", samplePDF); res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	d := documentsOf(t, env, a.ID)[0]
	dl := c.Get(base + "/" + d.ID.String() + "/download")
	checkServed(t, dl, "attachment", documents.ContentTypePDF, "statement.pdf")
}

func TestDownloadName(t *testing.T) {
	tests := []struct{ name, ctype, want string }{
		{"statement.html", documents.ContentTypePDF, "statement.pdf"},
		{"statement.PDF", documents.ContentTypePDF, "statement.PDF"},
		{"photo.jpeg", documents.ContentTypeJPEG, "photo.jpeg"},
		{"photo.png", documents.ContentTypeJPEG, "photo.jpg"},
		{"scan", documents.ContentTypeTIFF, "scan.tiff"},
		{".pdf", documents.ContentTypePDF, ".pdf.pdf"},
		{"id card.heic.exe", documents.ContentTypeHEIC, "id card.heic.heic"},
	}
	for _, tt := range tests {
		if got := documents.DownloadName(tt.name, tt.ctype); got != tt.want {
			t.Errorf("DownloadName(%q, %s) = %q, want %q", tt.name, tt.ctype, got, tt.want)
		}
	}
}
