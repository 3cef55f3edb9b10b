package accounts_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

func ptr[T any](v T) *T { return &v }

// fullDetails is a complete application, as a partner that knows everything
// would send it.
func fullDetails() *upstream.ApplicationData {
	return &upstream.ApplicationData{
		Business: &upstream.Business{
			DBA: "Corner Coffee", GoodsAndServices: "Coffee and pastries", Phone: "512-555-0134",
			Email: "owner@corner.example", WebsiteURL: "https://corner.example", MCC: "5814",
			Address: &upstream.Address{Line1: "1 Main St", City: "Austin", State: "TX", PostalCode: "78701"},
		},
		LegalEntity: &upstream.LegalEntity{Type: upstream.LegalEntityLLC, Name: "Corner Coffee LLC", TIN: "123456789", YearsInBusiness: ptr(3)},
		Owners: []upstream.Owner{{
			FirstName: "Ada", LastName: "Lovelace", PercentOwnership: ptr(100.0), SSN: "123-45-6789",
			DOB: "1980-12-10", ControlPerson: ptr(true),
		}},
		Banking: &upstream.Banking{DepositAccount: "000123456789", DepositRouting: "011401533", AccountType: upstream.AccountTypeChecking},
		Contact: &upstream.Contact{Name: "Ada Lovelace", Email: "ada@corner.example", Phone: "5125550135"},
	}
}

// appData decodes the sandbox's copy of an application's data.
func appData(t *testing.T, e *env, id string) (sandbox.Application, upstream.ApplicationData) {
	t.Helper()
	a, ok := e.sb.Application(id)
	if !ok {
		t.Fatalf("sandbox has no application %s", id)
	}
	var d upstream.ApplicationData
	if err := json.Unmarshal(a.Data, &d); err != nil {
		t.Fatalf("decode data: %v", err)
	}
	return a, d
}

func TestStartIsIdempotentByExternalID(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	req := upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode}

	first, err := c.StartApplication(ctx, req)
	if err != nil {
		t.Fatalf("first start: %v", err)
	}
	second, err := c.StartApplication(ctx, req)
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	if first != second {
		t.Errorf("repeat start gave %s, want %s", second, first)
	}
	if n := e.sb.StartedCount(); n != 1 {
		t.Errorf("StartedCount = %d, want 1", n)
	}
	a, _ := e.sb.Application(first)
	if a.Status != sandbox.StatusInitiated || a.PricingCode != pricingCode || a.ExternalApplicationID != req.ExternalApplicationID {
		t.Errorf("application = %+v", a)
	}
}

func TestStartCarriesDetails(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	id, err := c.StartApplication(context.Background(), upstream.StartRequest{
		ExternalApplicationID: newExternalID(), PricingCode: pricingCode, Details: fullDetails(),
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	_, got := appData(t, e, id)
	want, _ := json.Marshal(fullDetails())
	have, _ := json.Marshal(got)
	if string(want) != string(have) {
		t.Errorf("stored details\n got %s\nwant %s", have, want)
	}
}

func TestStartRefusals(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	used := newExternalID()
	if _, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: used, PricingCode: pricingCode}); err != nil {
		t.Fatalf("start: %v", err)
	}
	tests := []struct {
		name   string
		req    upstream.StartRequest
		status int
		field  string
	}{
		{"external id not a UUID", upstream.StartRequest{ExternalApplicationID: "abc", PricingCode: pricingCode}, 400, "externalApplicationId"},
		{"unknown pricing code", upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: "NOPE"}, 400, "pricingCode"},
		{"bad routing in details", upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode,
			Details: &upstream.ApplicationData{Banking: &upstream.Banking{DepositRouting: "123456789"}}}, 400, "banking.depositRouting"},
		{"same external id, other pricing", upstream.StartRequest{ExternalApplicationID: used, PricingCode: altPricingCode}, 409, "pricingCode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.StartApplication(ctx, tt.req)
			var ue *upstream.Error
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want *upstream.Error", err)
			}
			if ue.StatusCode != tt.status || !strings.Contains(ue.Message, tt.field) {
				t.Errorf("got %d %q, want %d naming %s", ue.StatusCode, ue.Message, tt.status, tt.field)
			}
			if !upstream.IsPermanent(err) || upstream.IsTemporary(err) {
				t.Errorf("IsPermanent=%v IsTemporary=%v, want permanent", upstream.IsPermanent(err), upstream.IsTemporary(err))
			}
			if refused := upstream.IsPricingCodeRefused(err); refused != (tt.name == "unknown pricing code") {
				t.Errorf("IsPricingCodeRefused = %v", refused)
			}
			if tt.name == "unknown pricing code" && (ue.Field != "pricingCode" || !strings.Contains(ue.Message, `"NOPE"`)) {
				t.Errorf("refusal = field %q, message %q; want the field and the code named", ue.Field, ue.Message)
			}
		})
	}
}

func TestPatchMergesAndValidates(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	id, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := c.PatchApplication(ctx, id, upstream.ApplicationData{Business: &upstream.Business{DBA: "Corner Coffee"}}); err != nil {
		t.Fatalf("first patch: %v", err)
	}
	if err := c.PatchApplication(ctx, id, upstream.ApplicationData{
		Business: &upstream.Business{Phone: "5125550134"},
		Banking:  &upstream.Banking{DepositAccount: "12345", DepositRouting: "011401533"},
	}); err != nil {
		t.Fatalf("second patch: %v", err)
	}
	_, got := appData(t, e, id)
	if got.Business == nil || got.Business.DBA != "Corner Coffee" || got.Business.Phone != "5125550134" {
		t.Errorf("business = %+v, want dba and phone merged", got.Business)
	}
	if got.Banking == nil || got.Banking.DepositAccount != "12345" {
		t.Errorf("banking = %+v", got.Banking)
	}

	err = c.PatchApplication(ctx, id, upstream.ApplicationData{Banking: &upstream.Banking{DepositAccount: "12"}})
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusBadRequest || !strings.Contains(ue.Message, "banking.depositAccount") {
		t.Errorf("short account: err = %v, want 400 naming banking.depositAccount", err)
	}
	err = c.PatchApplication(ctx, "9d7c1a8e-0000-4000-8000-000000000000", upstream.ApplicationData{})
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusNotFound {
		t.Errorf("unknown application: err = %v, want 404", err)
	}
}

func TestLinkThenPatchIsRefused(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	id, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	posted, err := c.CreateLink(ctx, id)
	if err != nil {
		t.Fatalf("create link: %v", err)
	}
	got, err := c.GetLink(ctx, id)
	if err != nil {
		t.Fatalf("get link: %v", err)
	}
	if posted != got || !strings.HasSuffix(got, id) || !strings.HasPrefix(got, e.ts.URL) {
		t.Errorf("links %q and %q, want the same, on the sandbox, ending with %s", posted, got, id)
	}
	if a, _ := e.sb.Application(id); a.Status != sandbox.StatusRequested {
		t.Errorf("status = %s, want requested", a.Status)
	}

	err = c.PatchApplication(ctx, id, upstream.ApplicationData{Business: &upstream.Business{DBA: "Late"}})
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusConflict {
		t.Fatalf("patch after link: err = %v, want 409", err)
	}
	if !upstream.IsPermanent(err) {
		t.Errorf("409 should be permanent")
	}
}
