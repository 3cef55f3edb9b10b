package imports

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/payportal/portal/internal/drafts"
)

// FieldPricing is the import's column of the pricing model, chosen by name: the model is
// not part of the draft, so the registry has no field for it.
const FieldPricing = drafts.FieldPricingModel

// mappableOwners is how many owners a file may describe, owner by owner ("owners.1.ssn").
const mappableOwners = 3

// Column is a field a file's column can fill.
type Column struct {
	// Field is the canonical field name, which is also the template's header.
	Field string
	// Group and Label name it for people: "Owner 1", "SSN".
	Group, Label string
	// Sensitive marks personal data: sealed, masked in the rejected-rows file.
	Sensitive bool
	// InTemplate says the downloadable template has the column.
	InTemplate bool
}

// Title is how the mapping page names a column: "Owner 1 · SSN".
func (c Column) Title() string { return c.Group + " · " + c.Label }

// columns lists every field a column may fill, in form order: the draft's fields of the
// first mappableOwners owners (without the owner's internal id), and the pricing model.
// It is worked out once from the registry and never changes.
var columns = sync.OnceValue(listColumns)

func listColumns() []Column {
	d := drafts.Draft{Owners: make([]drafts.Owner, mappableOwners)}
	sensitive := map[string]bool{}
	for _, f := range d.SensitiveFields() {
		sensitive[f.Field] = true
	}
	var out []Column
	for _, name := range d.FieldNames() {
		i, sub := drafts.SplitOwnerField(name)
		if sub == "id" {
			continue
		}
		group, label := drafts.ChangeLabel(name)
		out = append(out, Column{
			Field: name, Group: group, Label: label, Sensitive: sensitive[name],
			InTemplate: i <= 0 && sub != "is_control_person",
		})
	}
	// The pricing model goes before the notes (the draft's last field), where the form
	// has it.
	pricing := Column{Field: FieldPricing, Group: drafts.SectionTitle(drafts.SectionPricing), Label: "Pricing model (its name)", InTemplate: true}
	return slices.Insert(out, len(out)-1, pricing)
}

// Columns lists the fields a column may fill, in form order.
func Columns() []Column { return slices.Clone(columns()) }

// TemplateHeader is the header row of the downloadable template.
func TemplateHeader() []string {
	var out []string
	for _, c := range columns() {
		if c.InTemplate {
			out = append(out, c.Field)
		}
	}
	return out
}

// column returns the description of a canonical field, and whether a column may fill it.
func column(field string) (Column, bool) {
	for _, c := range columns() {
		if c.Field == field {
			return c, true
		}
	}
	return Column{}, false
}

// headerKey reduces a header to letters and digits, in lower case, so that "Legal Name",
// "legal_name" and "LEGAL-NAME" are one key.
func headerKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// guessKeys lists the headers that name a field: its canonical name, its group and label
// ("Business legal name", "Owner 1 SSN"), and its label alone when the label is the
// first owner's or the business's own ("SSN", "Owner SSN", "Legal name").
func guessKeys(c Column) []string {
	keys := []string{headerKey(c.Field), headerKey(c.Group + " " + c.Label)}
	switch i, _ := drafts.SplitOwnerField(c.Field); i {
	case 0:
		keys = append(keys, headerKey(c.Label), headerKey("Owner "+c.Label))
	case -1:
		keys = append(keys, headerKey(c.Label))
	}
	return keys
}

// GuessMapping maps each header of a file to the field it names, or "" when it names
// none or more than one: the canonical names map as they are, and labels where they are
// unambiguous. A field is given to one column at most, the first.
func GuessMapping(headers []string) []string {
	byKey := map[string][]string{}
	for _, c := range columns() {
		for _, k := range guessKeys(c) {
			if !slices.Contains(byKey[k], c.Field) {
				byKey[k] = append(byKey[k], c.Field)
			}
		}
	}
	taken := map[string]bool{}
	out := make([]string, len(headers))
	for i, h := range headers {
		exact := strings.TrimSpace(h)
		if _, ok := column(exact); ok && !taken[exact] {
			out[i], taken[exact] = exact, true
			continue
		}
		if fields := byKey[headerKey(h)]; len(fields) == 1 && !taken[fields[0]] {
			out[i], taken[fields[0]] = fields[0], true
		}
	}
	return out
}

// checkMapping refuses a mapping that fills a field twice or lacks the legal name, which
// finds duplicates. Errors are keyed by the column's position ("column.3").
func checkMapping(headers, mapping []string) map[string]string {
	errs := map[string]string{}
	seen := map[string]int{}
	legal := false
	for i, field := range mapping {
		if field == "" {
			continue
		}
		c, ok := column(field)
		if !ok {
			errs[columnKey(i)] = "Choose a field from the list."
			continue
		}
		if j, dup := seen[field]; dup {
			errs[columnKey(i)] = c.Title() + " is already filled from the column “" + headers[j] + "”."
			continue
		}
		seen[field] = i
		legal = legal || field == "business.legal_name"
	}
	if !legal && len(errs) == 0 {
		errs["mapping"] = "Choose the column that holds the business's legal name: rows are matched to existing merchants by it."
	}
	return errs
}

func columnKey(i int) string { return "column." + strconv.Itoa(i) }
