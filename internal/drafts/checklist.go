package drafts

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ChecklistOptions carries what the readiness checklist needs besides the draft.
type ChecklistOptions struct {
	// PricingModelChosen reports whether the application has a pricing model.
	PricingModelChosen bool
	// RequiredDocumentTypes are the document types the pricing model requires.
	RequiredDocumentTypes []string
	// UploadedDocumentTypes are the types of the documents uploaded so far.
	UploadedDocumentTypes []string
	// DocumentTitles names document types for people ("Voided check"); a type without a
	// title is shown by its code.
	DocumentTitles map[string]string
	// Now is the current time, for ages and future dates (see Draft.Validate).
	Now time.Time
}

// Checklist says what is still missing or wrong before an application can be submitted,
// section by section. Submit stays unavailable until it is empty.
type Checklist struct {
	// Sections holds only the sections with items, in form order.
	Sections []ChecklistSection
}

// ChecklistSection is one section's outstanding items, in form order.
type ChecklistSection struct {
	Name  string // a Section* constant
	Title string // its heading, as SectionTitle
	Items []ChecklistItem
}

// ChecklistItem is one thing to do. Field is a canonical field name or group anchor (see
// fields.go): the page links to "#"+Field to jump to it.
type ChecklistItem struct {
	Field   string
	Message string
}

// Empty reports whether nothing is outstanding, so the application can be submitted.
func (c Checklist) Empty() bool { return c.Count() == 0 }

// Count returns the number of outstanding items.
func (c Checklist) Count() int {
	n := 0
	for _, s := range c.Sections {
		n += len(s.Items)
	}
	return n
}

// Section returns the outstanding items of one section (empty when it is complete), for
// badges on section tabs.
func (c Checklist) Section(name string) ChecklistSection {
	for _, s := range c.Sections {
		if s.Name == name {
			return s
		}
	}
	return ChecklistSection{Name: name, Title: SectionTitle(name)}
}

// BuildChecklist lists everything that stops d from being submitted: every field Validate
// rejects (a field with an invalid value is not ready), and every required field or rule not
// yet met. The required set:
//
// Business, for every entity type: legal name, entity type, TIN, business address (street,
// city, state, ZIP; line 2 optional), phone, e-mail, goods and services, MCC, years in
// business, monthly volume, average and highest ticket, and the card mix adding up to 100% (a
// blank share counts as 0 once another is given). The DBA and website are optional; the
// legal name stands in for a missing DBA (Business.DBAOrLegalName). A sole proprietor may leave
// the TIN empty when the owner's SSN is entered (Draft.TaxID). Partnerships, LLCs,
// corporations and non-profits also need the incorporation date and state; sole proprietors
// and government bodies do not.
//
// Owners: at least one (for government bodies and non-profits, the officer who signs). Each
// needs first and last name, title, ownership percentage, date of birth, SSN, home address,
// phone and e-mail; non-profits and government bodies have no owners, so their officers'
// ownership percentage is optional (blank is 0). Exactly one owner is the control person. A
// sole proprietorship has exactly one owner, holding 100%. For partnerships, LLCs and
// corporations the beneficial-ownership rule applies: when the listed percentages leave 25% or
// more unaccounted for (100 − total ≥ 25), someone unlisted could own 25% or more, so the rep
// must list them or tick FieldOtherOwnersBelow25 to confirm nobody does.
//
// Deposit account: holder name, routing number, account number, account type. Merchant
// contact: name and e-mail (phone optional). Pricing: a model chosen. Documents: one upload of
// each type the pricing model requires.
func BuildChecklist(d Draft, opts ChecklistOptions) Checklist {
	t := d.trimmed()
	var list checklistBuilder
	list.draft = &t
	list.errs = d.Validate(opts.Now)
	for _, fe := range Sorted(list.errs) {
		list.invalid(fe.Field, fe.Message)
	}
	list.requireRegistered()
	t.requireBusiness(&list)
	t.requireOwners(&list)
	if !opts.PricingModelChosen {
		list.missing(FieldPricingModel)
	}
	uploaded := make(map[string]bool, len(opts.UploadedDocumentTypes))
	for _, dt := range opts.UploadedDocumentTypes {
		uploaded[dt] = true
	}
	for _, dt := range opts.RequiredDocumentTypes {
		if dt == "" || uploaded[dt] {
			continue
		}
		uploaded[dt] = true // list each type once
		title := opts.DocumentTitles[dt]
		if title == "" {
			title = dt
		}
		list.add(DocumentField(dt), "Upload the required document: "+title+".")
	}
	return list.checklist()
}

// checklistBuilder collects items and groups them into sections.
type checklistBuilder struct {
	draft *Draft      // trimmed
	errs  FieldErrors // Validate's answer; a field with an error gets no "missing" item
	items []ChecklistItem
}

func (b *checklistBuilder) add(field, msg string) {
	b.items = append(b.items, ChecklistItem{Field: field, Message: msg})
}

// invalid adds a validation message, naming the owner for owner fields.
func (b *checklistBuilder) invalid(field, msg string) {
	if _, i := splitField(field); i >= 0 {
		msg = b.ownerRef(i) + ": " + msg
	}
	b.add(field, msg)
}

// missing adds the field's "missing" phrase as a sentence, naming the owner for owner fields.
func (b *checklistBuilder) missing(field string) {
	info, _ := lookupField(field)
	b.phrase(field, info.missing)
}

// phrase adds a lower-case phrase as a sentence, naming the owner for owner fields.
func (b *checklistBuilder) phrase(field, phrase string) {
	if _, i := splitField(field); i >= 0 {
		b.add(field, b.ownerRef(i)+": "+phrase+".")
		return
	}
	b.add(field, upperFirst(phrase)+".")
}

// requireRegistered adds a "missing" item for every empty field the registry requires of
// this draft (see fieldInfo.require), owner fields once per owner.
func (b *checklistBuilder) requireRegistered() {
	for _, f := range fieldTable {
		if !f.required(b.draft) {
			continue
		}
		sub, isOwner := strings.CutPrefix(f.pattern, "owners.*.")
		if !isOwner {
			b.requireText(f.pattern)
			continue
		}
		for i := range b.draft.Owners {
			b.requireText(OwnerField(i, sub))
		}
	}
}

// requireText adds a "missing" item when the field is empty.
func (b *checklistBuilder) requireText(field string) {
	if v, err := b.draft.Get(field); err == nil && v == "" {
		b.missing(field)
	}
}

// ownerRef names owner i for people: "Owner 2 (Jane Doe)", or "Owner 2" before a name is
// entered.
func (b *checklistBuilder) ownerRef(i int) string {
	ref := "Owner " + strconv.Itoa(i+1)
	if i < len(b.draft.Owners) {
		if name := b.draft.Owners[i].FullName(); name != "" {
			ref += " (" + name + ")"
		}
	}
	return ref
}

// checklist groups the items by section in form order.
func (b *checklistBuilder) checklist() Checklist {
	slices.SortStableFunc(b.items, func(x, y ChecklistItem) int {
		switch {
		case fieldLess(x.Field, y.Field):
			return -1
		case fieldLess(y.Field, x.Field):
			return 1
		}
		return 0
	})
	var c Checklist
	for _, item := range b.items {
		name := SectionOf(item.Field)
		if n := len(c.Sections); n == 0 || c.Sections[n-1].Name != name {
			c.Sections = append(c.Sections, ChecklistSection{Name: name, Title: SectionTitle(name)})
		}
		s := &c.Sections[len(c.Sections)-1]
		s.Items = append(s.Items, item)
	}
	return c
}

// upperFirst capitalises the first letter of a phrase to start a sentence.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
