package drafts

import (
	"slices"
	"strconv"
	"strings"
)

// Canonical field names.
//
// Every editable value has one name, used as the HTML form field name (and element id, so it
// doubles as the #anchor the checklist links to), as the key of FieldErrors and as the JSON
// path in the stored draft. Names are the JSON names joined by dots, with owner positions as
// numbers:
//
//	business.legal_name  business.dba  business.entity_type  business.tin
//	business.incorporation_date  business.incorporation_state
//	business.address.line1  .line2  .city  .state  .postal_code
//	business.phone  business.email  business.website  business.goods_and_services
//	business.mcc  business.years_in_business  business.monthly_volume
//	business.average_ticket  business.highest_ticket
//	business.card_present_pct  business.keyed_pct  business.ecommerce_pct
//	owners.N.id  .first_name  .middle_name  .last_name  .title  .ownership_pct
//	owners.N.date_of_birth  .ssn  .address.line1 (… as above)  .phone  .email
//	owners.N.is_control_person
//	other_owners_below_25 (a checkbox of the owners section)
//	bank.holder_name  bank.routing_number  bank.account_number  bank.account_type
//	contact.name  contact.email  contact.phone
//	notes
//
// Some messages concern a group of inputs rather than one; they use group anchors, which the
// page puts as the id of the fieldset or section that holds the group:
//
//	owners             the owners section (no owner, ownership total, control person, 25% rule)
//	business.card_mix  the fieldset of the three card-mix percentages
//	pricing.model      the pricing choice (owned by the pricing section)
//	documents.TYPE     the upload slot of a required document type
const (
	FieldOwners       = "owners"
	FieldCardMix      = "business.card_mix"
	FieldPricingModel = "pricing.model"
	FieldBusinessTIN  = "business.tin"
	FieldNotes        = "notes"
	// FieldOtherOwnersBelow25 is the checkbox confirming that nobody unlisted holds 25% or more.
	FieldOtherOwnersBelow25 = "other_owners_below_25"
	// FieldBankFromMerchant is the checkbox leaving the deposit account to the merchant.
	FieldBankFromMerchant = "bank.from_merchant"
)

// OwnerField returns the canonical name of an owner's field: OwnerField(0, "ssn") is
// "owners.0.ssn". sub is the part after the index, such as "address.city".
func OwnerField(index int, sub string) string {
	return "owners." + strconv.Itoa(index) + "." + sub
}

// DocumentField returns the anchor of a required document's upload slot.
func DocumentField(docType string) string {
	return "documents." + docType
}

// Section names, in the order the application form shows them.
const (
	SectionBusiness  = "business"
	SectionOwners    = "owners"
	SectionBank      = "bank"
	SectionContact   = "contact"
	SectionPricing   = "pricing"
	SectionDocuments = "documents"
	SectionNotes     = "notes"
)

// sections lists section names and titles in form order.
var sections = [...]struct{ name, title string }{
	{SectionBusiness, "Business"},
	{SectionOwners, "Owners and officers"},
	{SectionBank, "Deposit account"},
	{SectionContact, "Merchant contact"},
	{SectionPricing, "Pricing"},
	{SectionDocuments, "Documents"},
	{SectionNotes, "Internal notes"},
}

// Sections returns the section names in form order.
func Sections() []string {
	names := make([]string, len(sections))
	for i, s := range sections {
		names[i] = s.name
	}
	return names
}

// SectionTitle returns the heading of a section ("Owners and officers"), or the name itself
// for an unknown section.
func SectionTitle(name string) string {
	for _, s := range sections {
		if s.name == name {
			return s.title
		}
	}
	return name
}

// SectionOf returns the section a canonical field name belongs to: its first segment, except
// for the top-level confirmation FieldOtherOwnersBelow25, which belongs to the owners.
func SectionOf(field string) string {
	if field == FieldOtherOwnersBelow25 {
		return SectionOwners
	}
	section, _, _ := strings.Cut(field, ".")
	return section
}

// fieldKind selects the wording of format messages shared by several kinds of field.
type fieldKind int

const (
	kindText fieldKind = iota
	kindMoney
	kindPercent
)

// requirement says when the readiness checklist asks for a field that is empty.
type requirement int

const (
	// never: the field is optional, or a rule of its own in checklist_rules.go covers it
	// (the TIN, the card mix, the pricing model).
	never requirement = iota
	always
	// incorporated: partnerships, LLCs, corporations and non-profits only.
	incorporated
	// beneficialOwners: entities whose owners hold shares (not non-profits or government).
	beneficialOwners
	// depositFromRep: unless the deposit account is left to the merchant.
	depositFromRep
)

// fieldInfo describes one field pattern; owner fields use "*" for the index.
type fieldInfo struct {
	pattern string
	label   string // how forms, messages, the history and the sent view name the field
	missing string // checklist phrase when the field is required and empty
	require requirement
	kind    fieldKind // for shared format messages
	input   inputSpec // how the field is typed in; the zero value is a plain text input
	// sensitive marks personal data: encrypted at rest, masked on screen, never logged.
	sensitive bool
	// sent is the field of the upstream's application data it is sent as ("legalEntity.tin",
	// "owners.*.ssn"); "" for what stays in the portal. internal/submission maps the values
	// (upstream_map.go), and its tests hold the mapping to this column.
	sent string
}

// The field registry. Adding a field to the form means adding it to Draft (draft.go), one
// line here (with the upstream field it is sent as, if any), its line in the upstream
// mapping (internal/submission/upstream_map.go), and its place in the section's template.
// Labels, inputs, checklist requirements, which fields are personal data, the order of
// messages and the page of what was sent all come from here.

// hints shared by several inputs.
const (
	hintMoney   = "US dollars, like $62,000 or 1234.50."
	hintPercent = "Percent, like 25 or 33.33."
)

// fieldTable lists every field pattern in form order; the order sorts errors and checklist
// items. Group anchors sit where their message reads best.
var fieldTable = [...]fieldInfo{
	{pattern: "business.legal_name", sent: "legalEntity.name", label: "Legal name", missing: "enter the legal name", require: always, input: inputSpec{autocomplete: "off"}},
	{pattern: "business.dba", sent: "business.dba", label: "DBA name", input: inputSpec{autocomplete: "off"}},
	{pattern: "business.entity_type", sent: "legalEntity.type", label: "Entity type", missing: "choose the entity type", require: always, input: inputSpec{kind: "select", options: entityOptions}},
	{pattern: FieldBusinessTIN, sent: "legalEntity.tin", label: "TIN", missing: "enter the TIN (the business's EIN)", sensitive: true,
		input: inputSpec{mode: "numeric", format: "tin", hint: "The business's EIN, like 12-3456789; a sole proprietor may give an SSN."}},
	{pattern: "business.incorporation_date", sent: "legalEntity.incorporationDate", label: "Incorporation date", missing: "enter the incorporation date", require: incorporated, input: inputSpec{typ: "date"}},
	{pattern: "business.incorporation_state", sent: "legalEntity.incorporationState", label: "Incorporation state", missing: "choose the state of incorporation", require: incorporated, input: inputSpec{kind: "select", options: stateOptions}},
	{pattern: "business.address.line1", sent: "business.address.line1", label: "Street address", missing: "enter the street address of the business", require: always},
	{pattern: "business.address.line2", sent: "business.address.line2", label: "Address line 2"},
	{pattern: "business.address.city", sent: "business.address.city", label: "City", missing: "enter the city of the business address", require: always},
	{pattern: "business.address.state", sent: "business.address.state", label: "State", missing: "choose the state of the business address", require: always, input: inputSpec{kind: "select", options: stateOptions}},
	{pattern: "business.address.postal_code", sent: "business.address.postalCode", label: "ZIP code", missing: "enter the ZIP code of the business address", require: always, input: inputSpec{mode: "numeric", format: "zip"}},
	{pattern: "business.phone", sent: "business.phone", label: "Business phone", missing: "enter the business phone number", require: always, input: inputSpec{typ: "tel", format: "phone"}},
	{pattern: "business.email", sent: "business.email", label: "Business e-mail", missing: "enter the business e-mail address", require: always, input: inputSpec{typ: "email"}},
	{pattern: "business.website", sent: "business.websiteUrl", label: "Website", input: inputSpec{typ: "url", hint: "Like https://example.com."}},
	{pattern: "business.goods_and_services", sent: "business.goodsAndServices", label: "Goods and services", missing: "describe the goods and services sold", require: always},
	{pattern: "business.mcc", sent: "business.mcc", label: "MCC", missing: "enter the MCC (merchant category code)", require: always, input: inputSpec{mode: "numeric", hint: "Merchant category code: 4 digits, like 5812."}},
	{pattern: "business.years_in_business", sent: "legalEntity.yearsInBusiness", label: "Years in business", missing: "enter the years in business", require: always, input: inputSpec{mode: "numeric"}},
	{pattern: "business.monthly_volume", sent: "business.monthlyVolume", label: "Monthly card volume", missing: "enter the expected monthly card volume", require: always, kind: kindMoney, input: inputSpec{mode: "decimal", format: "money", hint: hintMoney}},
	{pattern: "business.average_ticket", sent: "business.averageTicket", label: "Average ticket", missing: "enter the average ticket", require: always, kind: kindMoney, input: inputSpec{mode: "decimal", format: "money", hint: hintMoney}},
	{pattern: "business.highest_ticket", sent: "business.highTicket", label: "Highest ticket", missing: "enter the highest ticket", require: always, kind: kindMoney, input: inputSpec{mode: "decimal", format: "money", hint: hintMoney}},
	{pattern: "business.card_present_pct", label: "Card-present share", kind: kindPercent, input: inputSpec{mode: "decimal", hint: hintPercent}},
	{pattern: "business.keyed_pct", label: "Keyed share", kind: kindPercent, input: inputSpec{mode: "decimal", hint: hintPercent}},
	{pattern: "business.ecommerce_pct", label: "E-commerce share", kind: kindPercent, input: inputSpec{mode: "decimal", hint: hintPercent}},
	{pattern: FieldCardMix, label: "Card mix"},
	{pattern: FieldOwners, label: "Owners"},
	{pattern: "owners.*.id", label: "Owner id"},
	{pattern: "owners.*.first_name", sent: "owners.*.firstName", label: "First name", missing: "enter the first name", require: always},
	{pattern: "owners.*.middle_name", sent: "owners.*.middleName", label: "Middle name"},
	{pattern: "owners.*.last_name", sent: "owners.*.lastName", label: "Last name", missing: "enter the last name", require: always},
	{pattern: "owners.*.title", sent: "owners.*.title", label: "Title", missing: "enter the title", require: always},
	{pattern: "owners.*.ownership_pct", sent: "owners.*.percentOwnership", label: "Ownership", missing: "enter the ownership percentage", require: beneficialOwners, kind: kindPercent, input: inputSpec{mode: "decimal", hint: hintPercent}},
	{pattern: "owners.*.date_of_birth", sent: "owners.*.dob", label: "Date of birth", missing: "enter the date of birth", require: always, input: inputSpec{typ: "date"}},
	{pattern: "owners.*.ssn", sent: "owners.*.ssn", label: "SSN", missing: "enter the SSN", require: always, sensitive: true, input: inputSpec{mode: "numeric", format: "ssn", hint: "9 digits (###-##-####); an owner without an SSN gives their ITIN."}},
	{pattern: "owners.*.address.line1", sent: "owners.*.address.line1", label: "Street address", missing: "enter the home street address", require: always},
	{pattern: "owners.*.address.line2", sent: "owners.*.address.line2", label: "Address line 2"},
	{pattern: "owners.*.address.city", sent: "owners.*.address.city", label: "City", missing: "enter the city of the home address", require: always},
	{pattern: "owners.*.address.state", sent: "owners.*.address.state", label: "State", missing: "choose the state of the home address", require: always, input: inputSpec{kind: "select", options: stateOptions}},
	{pattern: "owners.*.address.postal_code", sent: "owners.*.address.postalCode", label: "ZIP code", missing: "enter the ZIP code of the home address", require: always, input: inputSpec{mode: "numeric", format: "zip"}},
	{pattern: "owners.*.phone", sent: "owners.*.phone", label: "Phone", missing: "enter the phone number", require: always, input: inputSpec{typ: "tel", format: "phone"}},
	{pattern: "owners.*.email", sent: "owners.*.email", label: "E-mail", missing: "enter the e-mail address", require: always, input: inputSpec{typ: "email"}},
	{pattern: "owners.*.is_control_person", sent: "owners.*.controlPerson", label: "Control person"},
	{pattern: FieldOtherOwnersBelow25, label: "No other owner of 25% or more", input: inputSpec{kind: "checkbox"}},
	{pattern: FieldBankFromMerchant, label: "The merchant enters the deposit account", input: inputSpec{kind: "checkbox",
		hint: "Tick this when you don't have the merchant's bank details: the processor's pages ask the merchant for them after the hand-off, and nothing below is sent."}},
	{pattern: "bank.holder_name", sent: "banking.accountHolderName", label: "Account holder name", missing: "enter the account holder's name", require: depositFromRep},
	{pattern: "bank.routing_number", sent: "banking.depositRouting", label: "Routing number", missing: "enter the routing number", require: depositFromRep, input: inputSpec{mode: "numeric", hint: "9 digits."}},
	{pattern: "bank.account_number", sent: "banking.depositAccount", label: "Account number", missing: "enter the account number", require: depositFromRep, sensitive: true, input: inputSpec{mode: "numeric", hint: "3 to 17 digits."}},
	{pattern: "bank.account_type", sent: "banking.accountType", label: "Account type", missing: "choose checking or savings", require: depositFromRep, input: inputSpec{kind: "select", options: accountOptions}},
	{pattern: "contact.name", sent: "contact.name", label: "Contact name", missing: "enter the contact's name", require: always},
	{pattern: "contact.email", sent: "contact.email", label: "Contact e-mail", missing: "enter the contact's e-mail address, where the hand-off e-mail goes", require: always,
		input: inputSpec{typ: "email", hint: "The hand-off e-mail goes to this address."}},
	{pattern: "contact.phone", sent: "contact.phone", label: "Contact phone", input: inputSpec{typ: "tel", format: "phone"}},
	{pattern: FieldPricingModel, label: "Pricing model", missing: "choose a pricing model"},
	{pattern: "documents.*", label: "Document"},
	{pattern: FieldNotes, label: "Notes", input: inputSpec{kind: "textarea", hint: "Internal to the reseller; never sent to the processor or the merchant."}},
}

// SentAs returns the field of the upstream's application data that field is sent as, with
// an owner's position filled in ("owners.1.ssn" is sent as "owners.1.ssn" of the upstream's
// owners), or "" when it is not sent.
func SentAs(field string) string {
	info, _ := lookupField(field)
	if _, i := splitField(field); i >= 0 {
		return strings.Replace(info.sent, "*", strconv.Itoa(i), 1)
	}
	return info.sent
}

// required reports whether the checklist asks for field f of d when it is empty.
func (f fieldInfo) required(d *Draft) bool {
	switch f.require {
	case always:
		return true
	case incorporated:
		return d.Business.EntityType.NeedsIncorporation()
	case beneficialOwners:
		return d.Business.EntityType.HasBeneficialOwners()
	case depositFromRep:
		return !d.Bank.FromMerchant
	}
	return false
}

// splitField turns "owners.2.ssn" into the pattern "owners.*.ssn" and the index 2, and
// "documents.voided_check" into "documents.*"; other names are their own pattern, index -1.
func splitField(field string) (pattern string, index int) {
	switch {
	case strings.HasPrefix(field, "owners."):
		rest := strings.TrimPrefix(field, "owners.")
		num, sub, ok := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(num); ok && err == nil && n >= 0 {
			return "owners.*." + sub, n
		}
	case strings.HasPrefix(field, "documents."):
		return "documents.*", -1
	}
	return field, -1
}

// lookupField returns the description of a canonical field name; unknown names get their own
// name as label so a message is never empty.
func lookupField(field string) (fieldInfo, int) {
	pattern, _ := splitField(field)
	for i, f := range fieldTable {
		if f.pattern == pattern {
			return f, i
		}
	}
	return fieldInfo{pattern: pattern, label: field}, len(fieldTable)
}

// FieldLabel returns how messages name a field ("Routing number", "Date of birth").
func FieldLabel(field string) string {
	f, _ := lookupField(field)
	return f.label
}

// fieldLess orders canonical names as the form shows them: by section, then owner by owner,
// then field by field.
func fieldLess(a, b string) bool {
	ka, kb := fieldKey(a), fieldKey(b)
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}

// fieldKey is the sort key of fieldLess: section position, owner index (-1 before owner
// fields, so the owners group anchor comes first; after them for the confirmation below the
// owners), field position.
func fieldKey(field string) [3]int {
	_, pos := lookupField(field)
	_, index := splitField(field)
	if field == FieldOtherOwnersBelow25 {
		index = 1 << 30
	}
	section := len(sections)
	for i, s := range sections {
		if s.name == SectionOf(field) {
			section = i
		}
	}
	return [3]int{section, index, pos}
}

// SectionErrors keeps the messages of one section.
func SectionErrors(errs FieldErrors, section string) FieldErrors {
	out := FieldErrors{}
	for f, m := range errs {
		if SectionOf(f) == section {
			out[f] = m
		}
	}
	return out
}

// SortedFields orders a set of canonical names as the form shows them.
func SortedFields(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b string) int {
		switch {
		case fieldLess(a, b):
			return -1
		case fieldLess(b, a):
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// ChangeLabel names a changed field by its group and label: ("Owner 2", "SSN"),
// ("Owner 3", "added"), ("Business", "Legal name").
func ChangeLabel(field string) (group, label string) {
	if rest, ok := strings.CutPrefix(field, "owners."); ok {
		num, sub, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(num); err == nil {
			group = "Owner " + strconv.Itoa(n+1)
			switch sub {
			case OwnerAdded, OwnerRemoved:
				return group, sub
			case "is_control_person":
				return group, "control person"
			}
			return group, FieldLabel(field)
		}
	}
	if field == FieldOtherOwnersBelow25 {
		return SectionTitle(SectionOwners), "no other 25% owners"
	}
	return SectionTitle(SectionOf(field)), FieldLabel(field)
}

// Field describes one registered field, for rooms that lay fields out from the registry
// (the view of what was sent upstream).
type Field struct {
	// Pattern is the canonical name, with "*" for an owner's position.
	Pattern string
	Label   string
	// SentAs is the upstream field it is sent as, "*" for the owner's position; "" when it
	// stays in the portal.
	SentAs string
	// Sensitive marks personal data, shown masked.
	Sensitive bool
	// Money and Percent say how to write the value.
	Money, Percent bool
}

// Fields lists the registered fields of a section in form order.
func Fields(section string) []Field {
	var out []Field
	for _, f := range fieldTable {
		if SectionOf(f.pattern) != section {
			continue
		}
		out = append(out, Field{Pattern: f.pattern, Label: f.label, SentAs: f.sent, Sensitive: f.sensitive,
			Money: f.kind == kindMoney, Percent: f.kind == kindPercent})
	}
	return out
}
