package drafts

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// Form names beyond the canonical field names (see fields.go).
const (
	// formVersion carries the version of the application the form was rendered from.
	formVersion = "version"
	// formControlPerson is the radio group choosing the control person; its value is an
	// owner id. Each radio's id is the canonical "owners.N.is_control_person".
	formControlPerson = "owners.control_person"
	// formOwnerAction is the name of the add/remove owner buttons: "add" or "remove:<id>".
	formOwnerAction = "owner_action"
)

// editableSections are the sections a form posts; documents are uploaded elsewhere.
var editableSections = []string{SectionBusiness, SectionOwners, SectionBank, SectionContact, SectionPricing, SectionNotes}

// EditableSections lists the sections the workspace form saves, in form order.
func EditableSections() []string { return slices.Clone(editableSections) }

// IsEditableSection reports whether section names a section the workspace form saves.
func IsEditableSection(section string) bool { return slices.Contains(editableSections, section) }

// SectionForm is one section of the workspace as submitted: the values typed, the version
// they were typed on and, for the owners, the button pressed.
type SectionForm struct {
	Section string
	Version int
	values  url.Values
}

// BindSection reads one section of a submitted form. Fields of other sections are ignored,
// so a section's autosave can never overwrite another section with stale values. A missing
// or unknown section or version is left for the service to refuse, after it has checked that
// the caller may see the application at all.
func BindSection(section string, values url.Values) SectionForm {
	version, err := strconv.Atoi(values.Get(formVersion))
	if err != nil {
		version = 0
	}
	return SectionForm{Section: section, Version: version, values: values}
}

// PricingChoice returns the pricing model id typed in the pricing section, and whether the
// section was submitted at all.
func (f SectionForm) PricingChoice() (string, bool) {
	if f.Section != SectionPricing || !f.values.Has(FieldPricingModel) {
		return "", false
	}
	return strings.TrimSpace(f.values.Get(FieldPricingModel)), true
}

// Applied is what binding a section did beyond copying values.
type Applied struct {
	// Note tells the rep about an owner added or removed; Problem is a message for the owners
	// section; Added is the id of the owner added.
	Note, Problem, Added string
}

// Apply copies the section's submitted values into d, which starts as the stored draft
// (decrypted). A personal-data field that comes back as its own mask is left as stored: the
// form shows only the mask, and the rep replaces the value by typing a new one.
func (f SectionForm) Apply(d *Draft) Applied {
	switch f.Section {
	case SectionOwners:
		return f.applyOwners(d)
	case SectionPricing:
		return Applied{} // the pricing model is a column, not part of the draft
	case SectionBank:
		// An unticked checkbox sends nothing, so its absence is the answer.
		d.Bank.FromMerchant = f.values.Get(FieldBankFromMerchant) != ""
	}
	for _, name := range d.FieldNames() {
		if SectionOf(name) != f.Section || !f.values.Has(name) {
			continue
		}
		f.setField(d, name, name)
	}
	return Applied{}
}

// setField stores the submitted value of the form field formName in the draft field name,
// keeping a stored personal-data value whose mask came back unchanged.
func (f SectionForm) setField(d *Draft, formName, name string) {
	v := f.values.Get(formName)
	if isSensitive(d, name) {
		if stored, _ := d.Get(name); stored != "" && v == fieldcrypt.Mask(stored) {
			return
		}
	}
	_ = d.Set(name, strings.ReplaceAll(v, "\r\n", "\n")) // every name comes from FieldNames
}

// applyOwners binds the owners by id (positions in the form are only how they were shown),
// then the control person, the 25% confirmation and the add or remove button.
func (f SectionForm) applyOwners(d *Draft) Applied {
	subs := ownerSubfields()
	for i := range MaxOwners {
		id := strings.TrimSpace(f.values.Get(OwnerField(i, "id")))
		if id == "" {
			continue
		}
		_, j, ok := d.Owner(id)
		if !ok {
			continue // an owner removed meanwhile, or a forged id: owners are only added by the button
		}
		for _, sub := range subs {
			if name := OwnerField(i, sub); f.values.Has(name) {
				f.setField(d, name, OwnerField(j, sub))
			}
		}
	}
	d.SetControlPerson(f.values.Get(formControlPerson))
	d.OtherOwnersBelow25 = f.values.Get(FieldOtherOwnersBelow25) != ""

	action := f.values.Get(formOwnerAction)
	switch {
	case action == "add":
		o, ok := d.AddOwner(uuid.NewString())
		if !ok {
			return Applied{Problem: "An application can list at most " + strconv.Itoa(MaxOwners) + " owners."}
		}
		return Applied{Note: "Owner added.", Added: o.ID}
	case strings.HasPrefix(action, "remove:"):
		if d.RemoveOwner(strings.TrimPrefix(action, "remove:")) {
			return Applied{Note: "Owner removed."}
		}
	}
	return Applied{}
}

// ownerSubfields lists an owner's form fields after "owners.N.", without the id (fixed) and
// the control-person flag (bound from the radio group).
func ownerSubfields() []string {
	one := Draft{Owners: []Owner{{}}}
	var subs []string
	for _, name := range one.FieldNames() {
		if sub, ok := strings.CutPrefix(name, "owners.0."); ok && sub != "id" && sub != "is_control_person" {
			subs = append(subs, sub)
		}
	}
	return subs
}

// isSensitive reports whether a canonical field name of d holds personal data.
func isSensitive(d *Draft, name string) bool {
	for _, f := range d.SensitiveFields() {
		if f.Field == name {
			return true
		}
	}
	return false
}
