package submission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

func TestUpstreamDataMapsTheDraftToThePublishedNames(t *testing.T) {
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners = append(d.Owners, draftstest.SecondOwner())
	d.Owners[0].OwnershipPct = "60"
	d.Normalize()
	got := UpstreamData(d)

	b, le, bk := got.Business, got.LegalEntity, got.Banking
	checks := []struct{ name, got, want string }{
		{"business.dba", b.DBA, "Blue Fern"},
		{"business.type", b.Type, "llc"},
		{"business.goodsAndServices", b.GoodsAndServices, "Coffee and pastries"},
		{"business.phone (10 digits)", b.Phone, "4155550100"},
		{"business.email", b.Email, "hello@bluefern.example"},
		{"business.websiteUrl", b.WebsiteURL, "https://bluefern.example"},
		{"business.address.line2", b.Address.Line2, "Suite 5"},
		{"business.address.postalCode", b.Address.PostalCode, "94105"},
		{"business.mcc", b.MCC, "5814"},
		{"business.monthlyVolume", b.MonthlyVolume, "45000.00"},
		{"business.averageTicket", b.AverageTicket, "12.50"},
		{"business.highTicket (two decimals)", b.HighTicket, "250.00"},
		{"legalEntity.type", le.Type, "llc"},
		{"legalEntity.name", le.Name, "Blue Fern Coffee LLC"},
		{"legalEntity.tin (digits)", le.TIN, "123456789"},
		{"legalEntity.address = business address", le.Address.City, "San Francisco"},
		{"legalEntity.incorporationDate", le.IncorporationDate, "2019-06-01"},
		{"legalEntity.incorporationState", le.IncorporationState, "CA"},
		{"banking.depositAccount", bk.DepositAccount, "000123456789"},
		{"banking.depositRouting", bk.DepositRouting, "011401533"},
		{"banking.accountType", bk.AccountType, "Checking"},
		{"banking.accountHolderName", bk.AccountHolderName, "Blue Fern Coffee LLC"},
		{"owners[0].firstName", got.Owners[0].FirstName, "Jane"},
		{"owners[0].ssn (digits)", got.Owners[0].SSN, "234566789"},
		{"owners[0].dob", got.Owners[0].DOB, "1980-04-02"},
		{"owners[0].phone", got.Owners[0].Phone, "5105550199"},
		{"owners[1].phone (+1 dropped)", got.Owners[1].Phone, "5125550142"},
		{"owners[1].address.state", got.Owners[1].Address.State, "TX"},
		{"contact.email", got.Contact.Email, "jane@bluefern.example"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if le.YearsInBusiness == nil || *le.YearsInBusiness != 6 {
		t.Errorf("legalEntity.yearsInBusiness = %v", le.YearsInBusiness)
	}
	if le.Foreign == nil || *le.Foreign {
		t.Errorf("legalEntity.foreign = %v, want false", le.Foreign)
	}
	if p := got.Owners[0].PercentOwnership; p == nil || *p != 60 {
		t.Errorf("owners[0].percentOwnership = %v", p)
	}
	if c := got.Owners[0].ControlPerson; c == nil || !*c {
		t.Error("owners[0].controlPerson not sent")
	}
	if c := got.Owners[1].ControlPerson; c == nil || *c {
		t.Error("owners[1].controlPerson should be false")
	}

	// Nothing internal travels: not the notes, the card mix or the owners' ids.
	raw, _ := json.Marshal(got)
	for _, leak := range []string{"trade show", "owner-1", "card", "ecommerce", "notes"} {
		if strings.Contains(strings.ToLower(string(raw)), leak) {
			t.Errorf("the upstream data carries %q: %s", leak, raw)
		}
	}
}

func TestUpstreamEntityTypes(t *testing.T) {
	for _, tt := range []struct {
		entity drafts.EntityType
		want   string
	}{
		{drafts.EntitySoleProprietor, "soleProprietorship"},
		{drafts.EntityPartnership, "partnership"},
		{drafts.EntityLLC, "llc"},
		{drafts.EntityCorporation, "corporation"},
		{drafts.EntityNonProfit, "nonProfit"},
		{drafts.EntityGovernment, "government"},
	} {
		if got := UpstreamEntityType(tt.entity); got != tt.want {
			t.Errorf("%s → %q, want %q", tt.entity, got, tt.want)
		}
	}
	for _, e := range drafts.EntityTypes() {
		if UpstreamEntityType(e) == "" {
			t.Errorf("entity type %s has no upstream value", e)
		}
	}
}

func TestUpstreamDataRules(t *testing.T) {
	t.Run("sole proprietor without TIN sends the SSN", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntitySoleProprietor)
		d.Business.TIN = ""
		d.Normalize()
		if got := UpstreamData(d).LegalEntity.TIN; got != "234566789" {
			t.Errorf("tin = %q", got)
		}
	})
	t.Run("no DBA sends the legal name", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntityCorporation)
		d.Business.DBA = ""
		if got := UpstreamData(d).Business.DBA; got != "Blue Fern Coffee LLC" {
			t.Errorf("dba = %q", got)
		}
	})
	t.Run("an officer of a non-profit without a share owns 0", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntityNonProfit)
		if p := UpstreamData(d).Owners[0].PercentOwnership; p == nil || *p != 0 {
			t.Errorf("percentOwnership = %v, want 0", p)
		}
	})
	t.Run("a website without a scheme gets https", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntityLLC)
		d.Business.Website = "bluefern.example/shop"
		if got := UpstreamData(d).Business.WebsiteURL; got != "https://bluefern.example/shop" {
			t.Errorf("websiteUrl = %q", got)
		}
	})
	t.Run("an international phone goes as typed", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntityLLC)
		d.Business.Phone = "+44 20 7946 0958"
		if got := UpstreamData(d).Business.Phone; got != "+44 20 7946 0958" {
			t.Errorf("phone = %q", got)
		}
	})
	t.Run("amounts with commas and one decimal", func(t *testing.T) {
		d := draftstest.Complete(drafts.EntityLLC)
		d.Business.MonthlyVolume = "1,234.5"
		if got := UpstreamData(d).Business.MonthlyVolume; got != "1234.50" {
			t.Errorf("monthlyVolume = %q", got)
		}
	})
	t.Run("empty values are left out", func(t *testing.T) {
		var d drafts.Draft
		raw, _ := json.Marshal(UpstreamData(d))
		if strings.Contains(string(raw), `""`) || strings.Contains(string(raw), "owners") || strings.Contains(string(raw), "contact") {
			t.Errorf("empty draft sends %s", raw)
		}
	})
}

func TestMaskUpstreamDataHidesEveryPersonalNumber(t *testing.T) {
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners = append(d.Owners, draftstest.SecondOwner())
	d.Normalize()
	data := UpstreamData(d)
	masked := applications.MaskUpstreamData(data)
	raw, _ := json.Marshal(masked)
	for _, secret := range []string{"123456789", "234567890", "000123456789", "234-56-6789", "234566789"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("masked data holds %s: %s", secret, raw)
		}
	}
	if masked.LegalEntity.TIN != fieldcrypt.Mask("123456789") || masked.Owners[1].SSN != fieldcrypt.Mask("234567890") {
		t.Errorf("masks: tin %q, ssn %q", masked.LegalEntity.TIN, masked.Owners[1].SSN)
	}
	// The original is untouched.
	if data.LegalEntity.TIN != "123456789" || data.Owners[0].SSN != "234566789" || data.Banking.DepositAccount != "000123456789" {
		t.Error("MaskUpstreamData changed its input")
	}
}

func TestSnapshotIsSealedAndOpensOnlyForItsApplication(t *testing.T) {
	ring, err := fieldcrypt.NewKeyRing("k1", map[string][]byte{"k1": make([]byte, fieldcrypt.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	s := applications.NewSealer(ring)
	d := draftstest.Complete(drafts.EntityLLC)
	d.Normalize()
	data := UpstreamData(d)
	a := &models.Application{ID: uuid.New()}
	if a.SubmittedSnapshot, err = s.SealSnapshot(a.ID, data); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"123456789", "000123456789"} {
		if strings.Contains(string(a.SubmittedSnapshot), secret) {
			t.Errorf("the stored snapshot holds %s in the clear", secret)
		}
	}
	opened, err := s.OpenSnapshot(a)
	if err != nil {
		t.Fatal(err)
	}
	if opened.LegalEntity.TIN != "123456789" || opened.Banking.DepositAccount != "000123456789" || opened.Business.DBA != "Blue Fern" {
		t.Errorf("opened snapshot differs: %+v", opened)
	}
	masked, err := applications.MaskedSnapshot(a)
	if err != nil || masked == nil || masked.Owners[0].SSN != fieldcrypt.Mask("234566789") {
		t.Fatalf("masked snapshot: %+v, %v", masked, err)
	}
	// Copied onto another application, it does not open.
	other := &models.Application{ID: uuid.New(), SubmittedSnapshot: a.SubmittedSnapshot}
	if _, err := s.OpenSnapshot(other); err == nil {
		t.Error("a snapshot opened on another application")
	}
	if _, err := s.OpenSnapshot(&models.Application{ID: uuid.New()}); err == nil {
		t.Error("no snapshot opened")
	}
	if m, err := applications.MaskedSnapshot(&models.Application{}); m != nil || err != nil {
		t.Errorf("never submitted: %v, %v", m, err)
	}
}

// A rep without the merchant's bank details leaves them to the merchant:
// nothing of them is sent upstream.
func TestBankLeftToMerchantIsNotSent(t *testing.T) {
	d := draftstest.Complete(drafts.EntityLLC)
	d.Bank = drafts.Bank{FromMerchant: true}
	if got := UpstreamData(d).Banking; got != nil {
		t.Fatalf("banking sent although left to the merchant: %+v", got)
	}

	// A typed account is not sent either, once the box is ticked.
	d.Bank = draftstest.Complete(drafts.EntityLLC).Bank
	d.Bank.FromMerchant = true
	if got := UpstreamData(d).Banking; got != nil {
		t.Fatalf("banking sent although left to the merchant: %+v", got)
	}
	d.Bank.FromMerchant = false
	if got := UpstreamData(d).Banking; got == nil || got.DepositRouting != d.Bank.RoutingNumber {
		t.Fatalf("banking not sent: %+v", got)
	}
}
