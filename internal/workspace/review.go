package workspace

import (
	"strconv"
	"strings"

	"github.com/payportal/portal/internal/drafts"
)

// ReviewGroup is one group of the review step: a section, or one owner, with every value
// entered and a link back to its step.
type ReviewGroup struct {
	Title string
	// Step is the step that edits the group.
	Step string
	Rows []ReviewRow
	// Missing counts the section's checklist items (on its first group only).
	Missing int
}

// ReviewRow is one value of the review. Personal numbers show as their mask.
type ReviewRow struct {
	Label, Value string
	// Empty marks a value not entered; Masked a personal number shown by its last four.
	Empty, Masked bool
}

// Review lays out everything entered, grouped by section in step order, from the field
// registry: the labels of the form, the choices' words, phones and amounts written for
// people, personal numbers masked.
func (p *EditPage) Review() []ReviewGroup {
	var out []ReviewGroup
	missing := func(section string) int { return len(p.Workspace.Checklist.Section(section).Items) }
	out = append(out, ReviewGroup{Title: drafts.SectionTitle(drafts.SectionBusiness), Step: drafts.SectionBusiness,
		Rows: p.reviewRows(drafts.Fields(drafts.SectionBusiness), -1), Missing: missing(drafts.SectionBusiness)})

	owners := drafts.Fields(drafts.SectionOwners)
	for i, o := range p.Form.Owners {
		title := "Owner " + strconv.Itoa(i+1)
		if name := o.FullName(); name != "" {
			title += ": " + name
		}
		if o.IsControlPerson {
			title += " (control person)"
		}
		g := ReviewGroup{Title: title, Step: drafts.SectionOwners, Rows: p.reviewRows(owners, i)}
		if i == 0 {
			g.Missing = missing(drafts.SectionOwners)
		}
		out = append(out, g)
	}
	if len(p.Form.Owners) == 0 {
		out = append(out, ReviewGroup{Title: drafts.SectionTitle(drafts.SectionOwners), Step: drafts.SectionOwners,
			Missing: missing(drafts.SectionOwners)})
	}
	if p.Form.OtherOwnersBelow25 {
		out[len(out)-1].Rows = append(out[len(out)-1].Rows, ReviewRow{Label: drafts.FieldLabel(drafts.FieldOtherOwnersBelow25), Value: "Yes"})
	}

	bank := ReviewGroup{Title: drafts.SectionTitle(drafts.SectionBank), Step: drafts.SectionBank, Missing: missing(drafts.SectionBank)}
	if p.Form.Bank.FromMerchant {
		bank.Rows = []ReviewRow{{Label: "Account", Value: "The merchant enters it on the processor's pages"}}
	} else {
		bank.Rows = p.reviewRows(drafts.Fields(drafts.SectionBank), -1)
	}
	out = append(out, bank)
	out = append(out, ReviewGroup{Title: drafts.SectionTitle(drafts.SectionContact), Step: drafts.SectionContact,
		Rows: p.reviewRows(drafts.Fields(drafts.SectionContact), -1), Missing: missing(drafts.SectionContact)})

	pricing := ReviewRow{Label: drafts.FieldLabel(drafts.FieldPricingModel), Value: "Not chosen", Empty: true}
	if m := p.Workspace.Pricing.Current; m != nil {
		pricing = ReviewRow{Label: pricing.Label, Value: m.Name}
	}
	out = append(out, ReviewGroup{Title: drafts.SectionTitle(drafts.SectionPricing), Step: drafts.SectionPricing,
		Rows: []ReviewRow{pricing}, Missing: missing(drafts.SectionPricing)})

	docs := ReviewGroup{Title: drafts.SectionTitle(drafts.SectionDocuments), Step: drafts.SectionDocuments, Missing: missing(drafts.SectionDocuments)}
	for _, label := range p.Workspace.Documents {
		docs.Rows = append(docs.Rows, ReviewRow{Label: label, Value: "Uploaded"})
	}
	if len(docs.Rows) == 0 {
		docs.Rows = []ReviewRow{{Label: "Files", Value: "None uploaded", Empty: true}}
	}
	return append(out, docs)
}

// reviewRows reads the registered fields of a section (owner is the owner's position for
// owner fields, -1 otherwise). Checkboxes show only when ticked.
func (p *EditPage) reviewRows(fields []drafts.Field, owner int) []ReviewRow {
	var rows []ReviewRow
	for _, f := range fields {
		name := f.Pattern
		if owner >= 0 {
			name = strings.Replace(name, "*", strconv.Itoa(owner), 1)
		}
		if name == drafts.FieldOtherOwnersBelow25 || name == drafts.FieldBankFromMerchant || name == drafts.FieldPricingModel ||
			strings.HasSuffix(name, ".id") || strings.HasSuffix(name, ".is_control_person") {
			continue // shown by Review itself (the control person in the owner's title), or no value for people
		}
		v, err := p.Form.Get(name)
		if err != nil {
			continue
		}
		row := ReviewRow{Label: f.Label, Value: v}
		switch {
		case drafts.Input(name, v).Kind == "checkbox":
			if row.Value = f.Display(v); row.Value == "" {
				continue
			}
		case v == "":
			row.Value, row.Empty = "Not entered", true
		case f.Sensitive && strings.HasPrefix(v, maskPrefix):
			row.Masked = true
		default:
			row.Value = f.Display(v)
		}
		rows = append(rows, row)
	}
	return rows
}
