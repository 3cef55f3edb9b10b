package drafts

import (
	"strings"

	"github.com/payportal/portal/internal/validation"
)

// Display writes a value of the field as people read it, as the processor's
// pages write it: a choice by its label, a US phone as (503) 555-0142, an
// amount as $62,000.00, a percentage with its sign, a ticked box as Yes (an
// unticked one as ""). A value that does not read as its kind is shown as it
// is. The review step and the page of what was sent both write values here.
func (f Field) Display(value string) string {
	if value == "" {
		return ""
	}
	name := strings.Replace(f.Pattern, "*", "0", 1) // an owner's fields read alike
	in := Input(name, value)
	switch {
	case in.Kind == "checkbox":
		if value == "true" {
			return "Yes"
		}
		return ""
	case in.Kind == "select":
		for _, o := range in.Options {
			if o.Value == value && o.Value != o.Label {
				return o.Label
			}
		}
	case IsPhoneField(name):
		return FormatPhone(value)
	case f.Money:
		if n, ok := validation.Hundredths(value); ok {
			return "$" + FormatMoney(n)
		}
	case f.Percent:
		return value + "%"
	}
	return value
}
