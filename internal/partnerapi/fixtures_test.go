package partnerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil/testfiles"
)

// webhookToken is the upstream webhooks' token of the harness's portal.
const webhookToken = "partner-api-test-webhook-token"

// newApplication creates a draft of rep A through the API and returns its id.
func (h *harness) newApplication(t testing.TB, body map[string]any) string {
	t.Helper()
	if body == nil {
		body = map[string]any{"business": map[string]any{"legalName": "Blue Fern LLC"}}
	}
	res := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: body})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["id"].(string)
}

// etagOf reads an application's ETag with the reseller-wide key.
func (h *harness) etagOf(t testing.TB, id string) string {
	t.Helper()
	res := h.do(t, request{key: keyReseller, method: http.MethodGet, path: "/api/v1/applications/" + id})
	if res.Status != http.StatusOK {
		t.Fatalf("read %s: %d %s", id, res.Status, res.Body)
	}
	return res.Header.Get("ETag")
}

// uploadBody is a multipart upload of a small PDF of docType.
func uploadBody(t testing.TB, docType string, seed uint64) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.WriteField("type", docType); err != nil {
		t.Fatal(err)
	}
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Disposition", `form-data; name="file"; filename="statement.pdf"`)
	hdr.Set("Content-Type", "application/octet-stream")
	part, err := w.CreatePart(hdr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(testfiles.PDF(2048, seed))
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

// newDocument uploads a document to an application with the rep's key.
func (h *harness) newDocument(t testing.TB, appID string) string {
	t.Helper()
	body, ct := uploadBody(t, "bank_statement", uint64(time.Now().UnixNano()))
	res := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications/" + appID + "/documents", body: body, contentType: ct})
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["id"].(string)
}

// linkedApplication stores an application of owner handed off to the merchant, as the
// push leaves it, and returns it with its upstream id.
func (h *harness) linkedApplication(t testing.TB, owner *models.User, name string) (*models.Application, string) {
	t.Helper()
	now := time.Now()
	upID := uuid.NewString()
	link := "https://upstream.example/app/" + upID
	a := &models.Application{
		ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusLinked, Version: 1, LegalName: name + " LLC", DBA: name,
		ContactName: "Jane Doe", ContactEmail: "jane@" + strings.ToLower(strings.ReplaceAll(name, " ", "")) + ".example",
		UpstreamApplicationID: &upID, HandoffLink: &link, LinkedAt: &now, CreatedAt: now, UpdatedAt: now, SubmissionCount: 1,
	}
	var err error
	if a.Draft, err = h.env.App.Sealer.SealJSON(a.ID, drafts.Draft{}); err != nil {
		t.Fatal(err)
	}
	if err := h.env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	return a, upID
}

// boardedMerchant stores a handed-off application of owner, boards it by the upstream's
// webhook, records a sale in its ledger and returns the merchant's and sale's ids.
func (h *harness) boardedMerchant(t testing.TB, owner *models.User, name string) (uuid.UUID, uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	a, upID := h.linkedApplication(t, owner, name)
	body, _ := json.Marshal(map[string]any{"id": upID, "status": "boarded", "created": now.Add(-time.Hour).UnixMilli(), "token": webhookToken})
	res, err := http.Post(h.env.URL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("boarding webhook: %d", res.StatusCode)
	}
	merchantID, ok, err := h.env.App.Merchants.Store().IDOfApplication(ctx, a.ID)
	if err != nil || !ok {
		t.Fatalf("no merchant: %v", err)
	}
	sale := uuid.New()
	err = pgx.BeginFunc(ctx, h.env.DB.Pool, func(tx pgx.Tx) error {
		_, err := h.env.App.Payments.Ledger().Record(ctx, tx, payments.NewTransaction{ID: sale, MerchantID: merchantID,
			Source: payments.SourceCard, Kind: payments.KindSale, AmountCents: 1250, Reference: "INV-1",
			Event: payments.Event{Message: "test sale"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return merchantID, sale
}

func uuidOf(t testing.TB, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
