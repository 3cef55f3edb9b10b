package drafts

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestFieldNamesAreCompleteAndOrdered(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = append(d.Owners, secondOwner())
	names := d.FieldNames()
	if len(names) != 23+16*2+1+5+3+1 { // business, two owners, the 25% box, bank (with the merchant box), contact, notes
		t.Errorf("FieldNames() has %d names: %v", len(names), names)
	}
	for _, n := range names {
		if _, pos := lookupField(n); pos == len(fieldTable) {
			t.Errorf("field %q has no entry in fieldTable (label, order)", n)
		}
		if _, err := d.Get(n); err != nil {
			t.Errorf("Get(%q): %v", n, err)
		}
	}
	if !slices.IsSortedFunc(names, func(a, b string) int {
		switch {
		case fieldLess(a, b):
			return -1
		case fieldLess(b, a):
			return 1
		}
		return 0
	}) {
		t.Errorf("FieldNames() is not in fieldTable order: %v", names)
	}
	// Every pattern of fieldTable that is a real field exists in a draft.
	for _, f := range fieldTable {
		if strings.Contains(f.pattern, "*") && !strings.HasPrefix(f.pattern, "owners.") {
			continue
		}
		name := strings.Replace(f.pattern, "*", "1", 1)
		if _, err := d.Get(name); err != nil && !slices.Contains([]string{FieldOwners, FieldCardMix, FieldPricingModel}, name) {
			t.Errorf("fieldTable pattern %q is not a draft field", f.pattern)
		}
	}
}

// TestFieldNamesFollowJSON checks the promise that a canonical name is the JSON path.
func TestFieldNamesFollowJSON(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = append(d.Owners, secondOwner())
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	for _, name := range d.FieldNames() {
		node := tree
		for _, seg := range strings.Split(name, ".") {
			switch n := node.(type) {
			case map[string]any:
				node = n[seg]
			case []any:
				i, _ := strconv.Atoi(seg)
				node = n[i]
			}
		}
		want, _ := d.Get(name)
		if got := fmt.Sprint(node); got != want {
			t.Errorf("%s: JSON holds %q, Get gives %q", name, got, want)
		}
	}
}

func TestGetAndSet(t *testing.T) {
	var d Draft
	sets := []struct{ field, value string }{
		{"business.legal_name", " Blue Fern "},
		{"business.entity_type", "llc"},
		{"business.address.postal_code", "94105"},
		{"owners.2.ssn", "123-45-6789"}, // keys arrive in any order
		{"owners.0.first_name", "Jane"},
		{"owners.0.is_control_person", "on"},
		{"owners.1.address.state", "tx"},
		{"bank.account_type", "savings"},
		{"other_owners_below_25", "true"},
		{"notes", "hi"},
	}
	for _, s := range sets {
		if err := d.Set(s.field, s.value); err != nil {
			t.Fatalf("Set(%q): %v", s.field, err)
		}
	}
	if d.Business.LegalName != " Blue Fern " || d.Business.EntityType != EntityLLC || len(d.Owners) != 3 ||
		d.Owners[2].SSN != "123-45-6789" || !d.Owners[0].IsControlPerson || d.Owners[1].Address.State != "tx" ||
		d.Bank.AccountType != AccountSavings || !d.OtherOwnersBelow25 || d.Notes != "hi" {
		t.Errorf("Set did not store the values: %+v", d)
	}
	if v, err := d.Get("owners.0.is_control_person"); v != "true" || err != nil {
		t.Errorf("Get checkbox = %q, %v", v, err)
	}
	if err := d.Set("owners.0.is_control_person", ""); err != nil || d.Owners[0].IsControlPerson {
		t.Errorf("unchecking: %v", err)
	}
	if err := d.Set("owners.0.is_control_person", "maybe"); err == nil {
		t.Error("a checkbox takes no arbitrary text")
	}

	for _, bad := range []string{
		"", "business", "business.nope", "owners", "owners.0", "owners.x.ssn", "owners.-1.ssn",
		"owners.01.ssn", "owners.10.ssn", "owners.99999999.ssn", "business.address", "csrf_token",
		"business.legal_name.x", "Business.LegalName",
	} {
		if err := d.Set(bad, "v"); !errors.Is(err, ErrUnknownField) {
			t.Errorf("Set(%q) = %v, want ErrUnknownField", bad, err)
		}
	}
	if len(d.Owners) != 3 {
		t.Errorf("a rejected Set grew owners to %d", len(d.Owners))
	}
	if _, err := d.Get("owners.5.ssn"); !errors.Is(err, ErrUnknownField) {
		t.Errorf("Get past the last owner: %v", err)
	}
}

func TestOwnerHelpers(t *testing.T) {
	var d Draft
	a, ok := d.AddOwner("a")
	if !ok || !a.IsControlPerson {
		t.Fatal("first owner is added as control person")
	}
	if _, ok := d.AddOwner("a"); ok {
		t.Error("duplicate id accepted")
	}
	if _, ok := d.AddOwner(""); ok {
		t.Error("empty id accepted")
	}
	b, _ := d.AddOwner("b")
	if b.IsControlPerson {
		t.Error("second owner must not be control person by default")
	}
	d.AddOwner("c")
	d.SetControlPerson("c")
	if d.Owners[0].IsControlPerson || !d.Owners[2].IsControlPerson {
		t.Errorf("SetControlPerson: %+v", d.Owners)
	}
	if !d.RemoveOwner("b") || d.RemoveOwner("b") || len(d.Owners) != 2 || d.Owners[1].ID != "c" {
		t.Errorf("RemoveOwner: %+v", d.Owners)
	}
	if o, i, ok := d.Owner("c"); !ok || i != 1 || o.ID != "c" {
		t.Errorf("Owner(c) = %v %d %v", o, i, ok)
	}
	d.SetControlPerson("")
	for _, o := range d.Owners {
		if o.IsControlPerson {
			t.Error("SetControlPerson(\"\") must clear every mark")
		}
	}
	for len(d.Owners) < MaxOwners {
		d.AddOwner(strconv.Itoa(len(d.Owners)))
	}
	if _, ok := d.AddOwner("one-too-many"); ok {
		t.Error("AddOwner beyond MaxOwners")
	}

	d = Draft{Owners: []Owner{{ID: "x"}, {}, {ID: "x"}, {ID: "y"}}}
	n := 0
	d.EnsureOwnerIDs(func() string { n++; return "new" + strconv.Itoa(n) })
	ids := []string{d.Owners[0].ID, d.Owners[1].ID, d.Owners[2].ID, d.Owners[3].ID}
	if !slices.Equal(ids, []string{"x", "new1", "new2", "y"}) {
		t.Errorf("EnsureOwnerIDs gave %v", ids)
	}
}

func TestSmallHelpers(t *testing.T) {
	if got := (Owner{FirstName: "Jane", MiddleName: "Q", LastName: "Doe"}).FullName(); got != "Jane Q Doe" {
		t.Errorf("FullName = %q", got)
	}
	if got := (Owner{LastName: "Doe"}).FullName(); got != "Doe" {
		t.Errorf("FullName = %q", got)
	}
	if got := (Business{LegalName: "L"}).DBAOrLegalName(); got != "L" {
		t.Errorf("DBAOrLegalName = %q", got)
	}
	if got := (Business{LegalName: "L", DBA: "D"}).DBAOrLegalName(); got != "D" {
		t.Errorf("DBAOrLegalName = %q", got)
	}
	for _, e := range EntityTypes() {
		if !e.Valid() || e.Title() == string(e) {
			t.Errorf("entity %q: Valid %v, Title %q", e, e.Valid(), e.Title())
		}
	}
	if EntityType("trust").Valid() {
		t.Error("unknown entity type is valid")
	}
	if SectionOf(FieldOtherOwnersBelow25) != SectionOwners || SectionOf("owners.3.ssn") != SectionOwners ||
		SectionOf(FieldCardMix) != SectionBusiness || SectionTitle("nope") != "nope" {
		t.Error("SectionOf/SectionTitle")
	}
	if len(Sections()) != 7 || FieldLabel("owners.4.date_of_birth") != "Date of birth" || FieldLabel("odd") != "odd" {
		t.Error("Sections/FieldLabel")
	}
	if OwnerField(2, "address.city") != "owners.2.address.city" || DocumentField("w9") != "documents.w9" {
		t.Error("OwnerField/DocumentField")
	}
	for in, want := range map[int64]string{0: "0", 12000: "120", 9050: "90.5", 3333: "33.33", 5: "0.05"} {
		if got := formatHundredths(in); got != want {
			t.Errorf("formatHundredths(%d) = %q, want %q", in, got, want)
		}
	}
}
