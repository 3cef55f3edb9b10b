package drafts

import (
	"slices"
	"strings"
	"testing"
)

// flatten writes a checklist as "section: field: message" lines for comparison.
func flatten(c Checklist) []string {
	var out []string
	for _, s := range c.Sections {
		for _, it := range s.Items {
			out = append(out, s.Name+": "+it.Field+": "+it.Message)
		}
	}
	return out
}

func ready() ChecklistOptions { return ChecklistOptions{PricingModelChosen: true, Now: now} }

func TestChecklistEmptyForCompleteDrafts(t *testing.T) {
	for _, e := range EntityTypes() {
		c := BuildChecklist(completeDraft(e), ready())
		if !c.Empty() || c.Count() != 0 || len(c.Sections) != 0 {
			t.Errorf("%s: complete draft still lists %v", e, flatten(c))
		}
	}
}

// The required business and owner fields of an empty draft, which all entity types share.
var (
	commonAddressAndMore = []string{
		"business: business.address.line1: Enter the street address of the business.",
		"business: business.address.city: Enter the city of the business address.",
		"business: business.address.state: Choose the state of the business address.",
		"business: business.address.postal_code: Enter the ZIP code of the business address.",
		"business: business.phone: Enter the business phone number.",
		"business: business.email: Enter the business e-mail address.",
		"business: business.goods_and_services: Describe the goods and services sold.",
		"business: business.mcc: Enter the MCC (merchant category code).",
		"business: business.years_in_business: Enter the years in business.",
		"business: business.monthly_volume: Enter the expected monthly card volume.",
		"business: business.average_ticket: Enter the average ticket.",
		"business: business.highest_ticket: Enter the highest ticket.",
		"business: business.card_mix: Enter the card mix: the card-present, keyed and e-commerce shares of volume, adding up to 100%.",
	}
	commonTail = []string{
		"bank: bank.holder_name: Enter the account holder's name.",
		"bank: bank.routing_number: Enter the routing number.",
		"bank: bank.account_number: Enter the account number.",
		"bank: bank.account_type: Choose checking or savings.",
		"contact: contact.name: Enter the contact's name.",
		"contact: contact.email: Enter the contact's e-mail address, where the hand-off e-mail goes.",
		"pricing: pricing.model: Choose a pricing model.",
	}
)

func join(parts ...[]string) []string { return slices.Concat(parts...) }

// TestChecklistOfEmptyDraftPerEntityType pins the whole list, with exact messages, for an
// empty draft of each entity type.
func TestChecklistOfEmptyDraftPerEntityType(t *testing.T) {
	legal := []string{"business: business.legal_name: Enter the legal name."}
	ein := []string{"business: business.tin: Enter the TIN (the business's EIN)."}
	incorporation := []string{
		"business: business.incorporation_date: Enter the incorporation date.",
		"business: business.incorporation_state: Choose the state of incorporation.",
	}
	tests := []struct {
		entity EntityType
		want   []string
	}{
		{"", join(legal,
			[]string{"business: business.entity_type: Choose the entity type."},
			ein, commonAddressAndMore,
			[]string{"owners: owners: Add at least one owner."}, commonTail)},
		{EntitySoleProprietor, join(legal,
			[]string{"business: business.tin: Enter the TIN: the business's EIN, or leave it empty and enter the owner's SSN, which a sole proprietor may use instead."},
			commonAddressAndMore,
			[]string{"owners: owners: Add the owner (the sole proprietor)."}, commonTail)},
		{EntityPartnership, join(legal, ein, incorporation, commonAddressAndMore,
			[]string{"owners: owners: Add at least one owner."}, commonTail)},
		{EntityLLC, join(legal, ein, incorporation, commonAddressAndMore,
			[]string{"owners: owners: Add at least one owner."}, commonTail)},
		{EntityCorporation, join(legal, ein, incorporation, commonAddressAndMore,
			[]string{"owners: owners: Add at least one owner."}, commonTail)},
		{EntityNonProfit, join(legal, ein, incorporation, commonAddressAndMore,
			[]string{"owners: owners: Add at least one officer: the person who controls the organisation and signs."}, commonTail)},
		{EntityGovernment, join(legal, ein, commonAddressAndMore,
			[]string{"owners: owners: Add at least one officer: the person who controls the organisation and signs."}, commonTail)},
	}
	for _, tt := range tests {
		t.Run(string(tt.entity), func(t *testing.T) {
			d := Draft{Business: Business{EntityType: tt.entity}}
			c := BuildChecklist(d, ChecklistOptions{Now: now})
			got := flatten(c)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if c.Count() != len(tt.want) || c.Empty() {
				t.Errorf("Count() = %d, Empty() = %v", c.Count(), c.Empty())
			}
			if c.Sections[0].Title != "Business" || c.Section(SectionOwners).Title != "Owners and officers" {
				t.Errorf("section titles: %+v", c.Sections)
			}
		})
	}
}

func TestChecklistOwnerFields(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = []Owner{{ID: "a", FirstName: "Ann"}, {ID: "b"}}
	got := flatten(BuildChecklist(d, ready()))
	want := []string{
		"owners: owners: Mark one owner as the control person, who signs the application.",
		"owners: owners: Listed owners hold 0% in total; list every person who owns 25% or more, or confirm that nobody else does.",
	}
	for i, ref := range []string{"Owner 1 (Ann)", "Owner 2"} {
		n := func(sub string) string { return OwnerField(i, sub) }
		if i == 1 {
			want = append(want, "owners: "+n("first_name")+": "+ref+": enter the first name.")
		}
		want = append(want,
			"owners: "+n("last_name")+": "+ref+": enter the last name.",
			"owners: "+n("title")+": "+ref+": enter the title.",
			"owners: "+n("ownership_pct")+": "+ref+": enter the ownership percentage.",
			"owners: "+n("date_of_birth")+": "+ref+": enter the date of birth.",
			"owners: "+n("ssn")+": "+ref+": enter the SSN.",
			"owners: "+n("address.line1")+": "+ref+": enter the home street address.",
			"owners: "+n("address.city")+": "+ref+": enter the city of the home address.",
			"owners: "+n("address.state")+": "+ref+": choose the state of the home address.",
			"owners: "+n("address.postal_code")+": "+ref+": enter the ZIP code of the home address.",
			"owners: "+n("phone")+": "+ref+": enter the phone number.",
			"owners: "+n("email")+": "+ref+": enter the e-mail address.",
		)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// has reports whether the checklist of d has an item with this field and message.
func has(c Checklist, field, msg string) bool {
	for _, s := range c.Sections {
		for _, it := range s.Items {
			if it.Field == field && it.Message == msg {
				return true
			}
		}
	}
	return false
}

func TestChecklistEntityRules(t *testing.T) {
	const noIncDate = "Enter the incorporation date."
	tests := []struct {
		name string
		edit func(d *Draft)
		want []string // "field: message" lines, the whole checklist
	}{
		{"sole proprietor needs no incorporation date or state", func(d *Draft) {
			d.Business.IncorporationDate, d.Business.IncorporationState = "", ""
		}, nil},
		{"sole proprietor may leave the TIN empty when the owner's SSN is given", func(d *Draft) {
			d.Business.TIN = ""
		}, nil},
		{"sole proprietor without TIN or SSN", func(d *Draft) {
			d.Business.TIN, d.Owners[0].SSN = "", ""
		}, []string{
			"business.tin: Enter the TIN: the business's EIN, or leave it empty and enter the owner's SSN, which a sole proprietor may use instead.",
			"owners.0.ssn: Owner 1 (Jane Doe): enter the SSN.",
		}},
		{"sole proprietor owns 100%", func(d *Draft) { d.Owners[0].OwnershipPct = "90" }, []string{
			"owners.0.ownership_pct: Owner 1 (Jane Doe): a sole proprietor owns 100% of the business; set ownership to 100.",
		}},
		{"sole proprietorship has one owner", func(d *Draft) {
			o := secondOwner()
			o.OwnershipPct = "0"
			d.Owners = append(d.Owners, o)
		}, []string{
			"owners: A sole proprietorship has one owner; remove the others or change the entity type.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := completeDraft(EntitySoleProprietor)
			tt.edit(&d)
			var got []string
			for _, line := range flatten(BuildChecklist(d, ready())) {
				_, rest, _ := strings.Cut(line, ": ")
				got = append(got, rest)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}

	for _, e := range []EntityType{EntityPartnership, EntityLLC, EntityCorporation, EntityNonProfit} {
		d := completeDraft(e)
		d.Business.IncorporationDate = ""
		if !has(BuildChecklist(d, ready()), "business.incorporation_date", noIncDate) {
			t.Errorf("%s needs an incorporation date", e)
		}
	}
	for _, e := range []EntityType{EntityLLC, EntityGovernment} {
		d := completeDraft(e)
		d.Business.TIN = ""
		if !has(BuildChecklist(d, ready()), FieldBusinessTIN, "Enter the TIN (the business's EIN).") {
			t.Errorf("%s needs a TIN even with the owner's SSN", e)
		}
	}
	for _, e := range []EntityType{EntityNonProfit, EntityGovernment} {
		d := completeDraft(e)
		d.Owners[0].OwnershipPct = "" // officers own nothing
		d.Owners = append(d.Owners, secondOwner())
		d.Owners[1].OwnershipPct = ""
		if c := BuildChecklist(d, ready()); !c.Empty() {
			t.Errorf("%s: officers need no ownership and no 25%% rule: %v", e, flatten(c))
		}
	}
}

func TestChecklistBeneficialOwnership(t *testing.T) {
	tests := []struct {
		pcts      []string
		confirmed bool
		want      string // "" = no item
	}{
		{[]string{"100"}, false, ""},
		{[]string{"60"}, false, "Listed owners hold 60% in total; list every person who owns 25% or more, or confirm that nobody else does."},
		{[]string{"50", "25"}, false, "Listed owners hold 75% in total; list every person who owns 25% or more, or confirm that nobody else does."}, // 25% left: could be one owner
		{[]string{"50", "25.01"}, false, ""}, // 24.99% left: nobody unlisted reaches 25%
		{[]string{"40", "35.5"}, false, ""},
		{[]string{"30", "30.5"}, false, "Listed owners hold 60.5% in total; list every person who owns 25% or more, or confirm that nobody else does."},
		{[]string{"10"}, true, ""}, // widely held, confirmed by the rep
		{[]string{"", "50"}, false, "Listed owners hold 50% in total; list every person who owns 25% or more, or confirm that nobody else does."},
	}
	for _, e := range []EntityType{EntityPartnership, EntityLLC, EntityCorporation, ""} {
		for _, tt := range tests {
			d := completeDraft(e)
			d.Business.EntityType = e
			d.OtherOwnersBelow25 = tt.confirmed
			base := d.Owners[0]
			d.Owners = nil
			for i, p := range tt.pcts {
				o := base
				o.ID, o.OwnershipPct, o.IsControlPerson = "o"+p, p, i == 0
				d.Owners = append(d.Owners, o)
			}
			c := BuildChecklist(d, ready())
			var got string
			for _, it := range c.Section(SectionOwners).Items {
				if strings.HasPrefix(it.Message, "Listed owners") {
					got = it.Message
				}
			}
			if got != tt.want {
				t.Errorf("%s %v confirmed=%v: got %q, want %q", e, tt.pcts, tt.confirmed, got, tt.want)
			}
		}
	}
}

func TestChecklistControlPerson(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners[0].IsControlPerson = false
	c := BuildChecklist(d, ready())
	if !slices.Equal(flatten(c), []string{"owners: owners: Mark one owner as the control person, who signs the application."}) {
		t.Errorf("no control person: %v", flatten(c))
	}
	d.Owners[0].IsControlPerson = true
	d.Owners[0].OwnershipPct = "50"
	o := secondOwner()
	o.OwnershipPct, o.IsControlPerson = "50", true
	d.Owners = append(d.Owners, o)
	want := []string{
		"owners: owners.0.is_control_person: Owner 1 (Jane Doe): Only one owner can be the control person; 2 are marked.",
		"owners: owners.1.is_control_person: Owner 2 (John Roe): Only one owner can be the control person; 2 are marked.",
	}
	if got := flatten(BuildChecklist(d, ready())); !slices.Equal(got, want) {
		t.Errorf("two control persons: %q", got)
	}
}

func TestChecklistCardMix(t *testing.T) {
	tests := []struct {
		present, keyed, ecom string
		want                 []string
	}{
		{"", "", "", []string{"business.card_mix: Enter the card mix: the card-present, keyed and e-commerce shares of volume, adding up to 100%."}},
		{"80", "", "", []string{"business.card_mix: The card mix adds up to 80% so far; the shares must add up to 100% (a blank share counts as 0)."}},
		{"", "", "100", nil}, // an online shop: blanks count as 0
		{"80", "20", "", nil},
		{"80", "10", "5", []string{"business.card_mix: Card-present, keyed and e-commerce shares add up to 95%; they must add up to 100%."}},
		{"80", "", "30", []string{"business.card_mix: Card-present, keyed and e-commerce shares add up to 110%; they can add up to at most 100%."}},
		{"80", "x", "", []string{"business.keyed_pct: Keyed share must be a percentage like 25 or 33.33."}},
		{"33.33", "33.33", "33.34", nil},
	}
	for _, tt := range tests {
		d := completeDraft(EntityLLC)
		d.Business.CardPresentPct, d.Business.KeyedPct, d.Business.EcommercePct = tt.present, tt.keyed, tt.ecom
		var got []string
		for _, line := range flatten(BuildChecklist(d, ready())) {
			_, rest, _ := strings.Cut(line, ": ")
			got = append(got, rest)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q/%q/%q: got %q, want %q", tt.present, tt.keyed, tt.ecom, got, tt.want)
		}
	}
}

func TestChecklistIncludesValidationErrors(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Bank.RoutingNumber = "123456789"
	d.Owners[0].DateOfBirth = "2008-03-16"
	d.Business.Email = "nope"
	want := []string{
		"business: business.email: Business e-mail must be an address like name@example.com.",
		"owners: owners.0.date_of_birth: Owner 1 (Jane Doe): Owners must be at least 18 years old; this date of birth makes them 17.",
		"bank: bank.routing_number: Routing number 123456789 fails the ABA checksum; check the digits.",
	}
	if got := flatten(BuildChecklist(d, ready())); !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	// A future incorporation date is not ready either.
	d = completeDraft(EntityCorporation)
	d.Business.IncorporationDate = "2026-03-16"
	if !has(BuildChecklist(d, ready()), "business.incorporation_date", "Incorporation date cannot be in the future.") {
		t.Error("future incorporation date missing from the checklist")
	}
}

func TestChecklistPricingAndDocuments(t *testing.T) {
	d := completeDraft(EntityLLC)
	opts := ChecklistOptions{
		Now:                   now,
		RequiredDocumentTypes: []string{"voided_check", "bank_letter", "voided_check", "", "processing_statements"},
		UploadedDocumentTypes: []string{"bank_letter", "drivers_license"},
		DocumentTitles:        map[string]string{"voided_check": "Voided check", "bank_letter": "Bank letter"},
	}
	want := []string{
		"pricing: pricing.model: Choose a pricing model.",
		"documents: documents.voided_check: Upload the required document: Voided check.",
		"documents: documents.processing_statements: Upload the required document: processing_statements.",
	}
	c := BuildChecklist(d, opts)
	if got := flatten(c); !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	if s := c.Section(SectionDocuments); s.Title != "Documents" || len(s.Items) != 2 {
		t.Errorf("documents section = %+v", s)
	}
	if s := c.Section(SectionBank); s.Title != "Deposit account" || len(s.Items) != 0 {
		t.Errorf("a complete section = %+v", s)
	}
	opts.PricingModelChosen = true
	opts.UploadedDocumentTypes = append(opts.UploadedDocumentTypes, "voided_check", "processing_statements")
	if c := BuildChecklist(d, opts); !c.Empty() {
		t.Errorf("all uploaded: %v", flatten(c))
	}
}

func TestChecklistShrinksAsTheRepFillsIn(t *testing.T) {
	var d Draft
	prev := BuildChecklist(d, ready()).Count()
	full := completeDraft(EntityLLC)
	steps := []func(){
		func() { d.Business = full.Business },
		func() { d.Owners = full.Owners },
		func() { d.Bank = full.Bank },
		func() { d.Contact = full.Contact },
	}
	for i, step := range steps {
		step()
		n := BuildChecklist(d, ready()).Count()
		if n >= prev {
			t.Errorf("step %d: checklist went from %d to %d items", i, prev, n)
		}
		prev = n
	}
	if prev != 0 {
		t.Errorf("filled draft still has %d items", prev)
	}
}
