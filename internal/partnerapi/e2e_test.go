package partnerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/partnerapi/client"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// e2ePricingCode is the pricing model's code the end-to-end run submits with.
const e2ePricingCode = "FLAT-2026"

// e2e is the end-to-end run's world: the harness with the sandbox as the processor, and
// a client generated from the document (internal/partnerapi/client).
type e2e struct {
	*harness
	api *client.ClientWithResponses
	ctx context.Context
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	h := newHarness(t, apptest.WithSandbox(func(o *sandbox.Options) { o.UnderwritingDelay = -1 }))
	m := models.PricingModel{ID: uuid.New(), Name: "Flat rate", UpstreamCode: e2ePricingCode, FeeSummary: "2.9% + 30¢",
		RequiredDocumentTypes: []string{"bank_statement"}, Active: true, Version: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := h.env.DB.Gorm.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	api, err := client.NewClientWithResponses(h.env.URL+"/api/v1", client.WithHTTPClient(h.http),
		client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+h.keys[keyRep])
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return &e2e{harness: h, api: api, ctx: context.Background()}
}

func text(s string) *string { return &s }

// readyInput is a complete application: its checklist is empty once a bank statement
// is attached.
func readyInput(pricing uuid.UUID) client.ApplicationInput {
	control := true
	return client.ApplicationInput{
		PricingModelId: &pricing,
		Business: &client.BusinessInput{
			LegalName: text("Blue Fern LLC"), Dba: text("Blue Fern"), EntityType: text("llc"), Tin: text("12-3456789"),
			IncorporationDate: text("2019-06-01"), IncorporationState: text("CA"),
			Address: &client.AddressInput{Line1: text("100 Market St"), City: text("San Francisco"), State: text("CA"), PostalCode: text("94105")},
			Phone:   text("(415) 555-0100"), Email: text("hello@bluefern.example"), Website: text("https://bluefern.example"),
			GoodsAndServices: text("Coffee and pastries"), Mcc: text("5814"), YearsInBusiness: text("6"),
			MonthlyVolume: text("45000.00"), AverageTicket: text("12.50"), HighestTicket: text("250"),
			CardPresentPct: text("80"), KeyedPct: text("5"), EcommercePct: text("15"),
		},
		Owners: &[]client.OwnerInput{{
			FirstName: text("Jane"), LastName: text("Doe"), Title: text("Managing member"), OwnershipPct: text("100"),
			DateOfBirth: text("1980-04-02"), Ssn: text("234-56-6789"), IsControlPerson: &control,
			Address: &client.AddressInput{Line1: text("1 Home Way"), City: text("Oakland"), State: text("CA"), PostalCode: text("94601")},
			Phone:   text("510-555-0199"), Email: text("jane@bluefern.example"),
		}},
		Bank:    &client.BankInput{HolderName: text("Blue Fern LLC"), RoutingNumber: text("011401533"), AccountNumber: text("000123456789"), AccountType: text("checking")},
		Contact: &client.ContactInput{Name: text("Jane Doe"), Email: text("jane@bluefern.example"), Phone: text("510-555-0199")},
	}
}

// TestEndToEnd drives the API as a vendor would, with the generated client: create an
// application, attach its document, submit it, wait for the merchant's link, let the
// merchant accept at the processor, have the processor board it (the sandbox's admin
// API), read the merchant, and receive the boarded webhooks at the vendor's receiver,
// their signatures checked by the Standard Webhooks reference library.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	x := newE2E(t)
	hooks, othersHooks := x.subscribe(t, keyRep), x.subscribe(t, keyOtherRep)
	models, err := x.api.ListPricingModelsWithResponse(x.ctx)
	if err != nil || models.JSON200 == nil || len(models.JSON200.Data) != 1 {
		t.Fatalf("pricing models: %v %s", err, models.Body)
	}
	created, err := x.api.CreateApplicationWithResponse(x.ctx, &client.CreateApplicationParams{IdempotencyKey: text(uuid.NewString())}, readyInput(models.JSON200.Data[0].Id))
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create: %v %s", err, created.Body)
	}
	app := created.JSON201
	if app.Business.TinLast4 == nil || *app.Business.TinLast4 != "6789" || app.Owners[0].SsnLast4 == nil || *app.Owners[0].SsnLast4 != "6789" {
		t.Fatalf("write-only numbers: %s", created.Body)
	}
	list, err := x.api.GetChecklistWithResponse(x.ctx, app.Id)
	if err != nil || list.JSON200 == nil || list.JSON200.Ready || !strings.Contains(string(list.Body), "/documents/bank_statement") {
		t.Fatalf("checklist before the document: %v %s", err, list.Body)
	}
	body, ct := uploadBody(t, "bank_statement", 42)
	up, err := x.api.UploadDocumentWithBodyWithResponse(x.ctx, app.Id, &client.UploadDocumentParams{}, ct, bytes.NewReader(body))
	if err != nil || up.JSON201 == nil || up.JSON201.Type != client.DocumentType("bank_statement") {
		t.Fatalf("upload: %v %s", err, up.Body)
	}
	if list, err = x.api.GetChecklistWithResponse(x.ctx, app.Id); err != nil || list.JSON200 == nil || !list.JSON200.Ready {
		t.Fatalf("checklist: %v %s", err, list.Body)
	}
	sub, err := x.api.SubmitApplicationWithResponse(x.ctx, app.Id, &client.SubmitApplicationParams{IdempotencyKey: text(uuid.NewString())})
	if err != nil || sub.JSON202 == nil || !sub.JSON202.Submitted {
		t.Fatalf("submit: %v %s", err, sub.Body)
	}
	var link string
	testutil.Eventually(t, 20*time.Second, "the merchant's link", func() (bool, string) {
		h, err := x.api.GetHandoffWithResponse(x.ctx, app.Id)
		if err != nil || h.JSON200 == nil {
			return false, "no answer"
		}
		if h.JSON200.Link != nil {
			link = *h.JSON200.Link
		}
		return h.JSON200.State == "linked" && link != "", string(h.Body)
	})
	x.merchantAccepts(t, link)
	x.processorBoards(t, app.Id)
	var merchant client.Merchant
	testutil.Eventually(t, 20*time.Second, "the merchant", func() (bool, string) {
		ms, err := x.api.ListMerchantsWithResponse(x.ctx, &client.ListMerchantsParams{})
		if err != nil || ms.JSON200 == nil {
			return false, "no answer"
		}
		for _, m := range ms.JSON200.Data {
			if m.ApplicationId == app.Id {
				merchant = m
				return true, ""
			}
		}
		return false, string(ms.Body)
	})
	got, err := x.api.GetMerchantWithResponse(x.ctx, merchant.Id)
	if err != nil || got.JSON200 == nil || got.JSON200.State != client.ApplicationStateBoarded || got.JSON200.BoardedAt.IsZero() {
		t.Fatalf("merchant: %v %s", err, got.Body)
	}
	if s, err := x.api.GetSubmissionWithResponse(x.ctx, app.Id); err != nil || s.JSON200 == nil || s.JSON200.State != client.ApplicationStateBoarded {
		t.Fatalf("submission: %v %s", err, s.Body)
	}
	hooks.expectBoarded(t, othersHooks, app.Id, merchant.Id)
}

// merchantAccepts opens the processor's link and accepts its terms, as the merchant would.
func (x *e2e) merchantAccepts(t *testing.T, link string) {
	t.Helper()
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("open the link: %d", res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, link+"/terms", strings.NewReader(url.Values{"accept": {"yes"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", x.env.Sandbox.URL)
	res, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept the terms: %d", res.StatusCode)
	}
}

// processorBoards boards the application through the sandbox's admin API, as the
// processor's back office would.
func (x *e2e) processorBoards(t *testing.T, id uuid.UUID) {
	t.Helper()
	var upID string
	if err := x.env.DB.Pool.QueryRow(x.ctx, `SELECT upstream_application_id FROM applications WHERE id = $1`, id).Scan(&upID); err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"status": "boarded"})
	req, _ := http.NewRequest(http.MethodPost, x.env.Sandbox.URL+"/_sandbox/admin/api/accounts/applications/"+upID+"/status", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+x.env.Config.Sandbox.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("board at the sandbox: %d", res.StatusCode)
	}
}
