package drafts

import (
	"net/url"
	"testing"
)

func TestBindSectionAppliesOnlyItsSection(t *testing.T) {
	d := completeDraft(EntityLLC)
	in := BindSection(SectionContact, url.Values{
		"version": {"3"}, "contact.name": {"New Name"}, "business.legal_name": {"Hijacked"}, "notes": {"x"}, "csrf_token": {"t"},
	})
	if in.Version != 3 {
		t.Errorf("version %d", in.Version)
	}
	in.Apply(&d)
	if d.Contact.Name != "New Name" || d.Business.LegalName != "Blue Fern Coffee LLC" || d.Notes != "Met at the trade show." {
		t.Errorf("bound %+v / %q / %q", d.Contact, d.Business.LegalName, d.Notes)
	}
	// A field left out of the post keeps its value.
	if d.Contact.Email != "jane@bluefern.example" {
		t.Errorf("e-mail %q", d.Contact.Email)
	}
	if BindSection("notes", url.Values{"version": {"x"}}).Version != 0 {
		t.Error("a bad version is not 0")
	}
}

func TestBindKeepsPersonalDataWhoseMaskComesBack(t *testing.T) {
	tests := []struct {
		name, posted, want string
	}{
		{"mask unchanged", "•••• 6789", "000123456789"},
		{"new number", "987654321", "987654321"},
		{"cleared", "", ""},
		{"a mask of something else is typed text", "•••• 1111", "•••• 1111"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := completeDraft(EntityLLC)
			d.Bank.AccountNumber = "000123456789"
			BindSection(SectionBank, url.Values{"version": {"1"}, "bank.account_number": {tt.posted}}).Apply(&d)
			if d.Bank.AccountNumber != tt.want {
				t.Errorf("account = %q, want %q", d.Bank.AccountNumber, tt.want)
			}
		})
	}
}

func TestBindOwnersByID(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = append(d.Owners, Owner{ID: "owner-2", FirstName: "Sam", SSN: "219099999"})
	// The form lists owner-2 first (positions are only how the page showed them), an owner
	// that does not exist, and marks owner-2 as the control person.
	in := BindSection(SectionOwners, url.Values{
		"version":               {"1"},
		"owners.0.id":           {"owner-2"},
		"owners.0.first_name":   {"Samuel"},
		"owners.0.ssn":          {"•••• 9999"},
		"owners.1.id":           {"owner-1"},
		"owners.1.ssn":          {"•••• 6789"},
		"owners.2.id":           {"forged"},
		"owners.2.first_name":   {"Mallory"},
		"owners.control_person": {"owner-2"},
		"other_owners_below_25": {"true"},
	})
	in.Apply(&d)
	if len(d.Owners) != 2 || d.Owners[0].ID != "owner-1" || d.Owners[1].FirstName != "Samuel" || d.Owners[0].FirstName != "Jane" {
		t.Fatalf("owners %+v", d.Owners)
	}
	if d.Owners[1].SSN != "219099999" || d.Owners[0].SSN != "234-56-6789" {
		t.Errorf("SSNs %q %q", d.Owners[0].SSN, d.Owners[1].SSN)
	}
	if d.Owners[0].IsControlPerson || !d.Owners[1].IsControlPerson || !d.OtherOwnersBelow25 {
		t.Errorf("control %v %v, confirmation %v", d.Owners[0].IsControlPerson, d.Owners[1].IsControlPerson, d.OtherOwnersBelow25)
	}

	added := BindSection(SectionOwners, url.Values{"version": {"1"}, "owner_action": {"add"}, "owners.control_person": {"owner-2"}}).Apply(&d)
	if len(d.Owners) != 3 || added.Added == "" || d.Owners[2].ID != added.Added || added.Note != "Owner added." {
		t.Errorf("add: %+v %+v", added, d.Owners)
	}
	removed := BindSection(SectionOwners, url.Values{"version": {"1"}, "owner_action": {"remove:owner-1"}, "owners.control_person": {"owner-2"}}).Apply(&d)
	if len(d.Owners) != 2 || d.Owners[0].ID != "owner-2" || removed.Note != "Owner removed." {
		t.Errorf("remove: %+v %+v", removed, d.Owners)
	}
	for len(d.Owners) < MaxOwners {
		d.AddOwner(string(rune('a' + len(d.Owners))))
	}
	if full := BindSection(SectionOwners, url.Values{"version": {"1"}, "owner_action": {"add"}}).Apply(&d); full.Problem == "" {
		t.Error("an eleventh owner was accepted")
	}
}
