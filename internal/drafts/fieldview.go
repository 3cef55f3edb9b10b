package drafts

import (
	"github.com/payportal/portal/internal/validation"
)

// FieldView is everything a template needs to render one form field: its name (which is
// also its id and the checklist's anchor), label, value as shown, message and input hints.
type FieldView struct {
	Name  string
	Label string
	// Value is the value as shown: typed, or for personal data the mask of the stored value.
	Value string
	Error string
	// Kind is "input", "select", "textarea" or "checkbox".
	Kind         string
	Type         string // the input type: text, email, tel, date, url
	InputMode    string
	Autocomplete string
	Hint         string
	Options      []Option
	// Sensitive marks personal data: shown masked, never autocompleted.
	Sensitive bool
	// Masked says the value shown is the mask of a stored value, not something typed.
	Masked bool
	// RevealKey, when set, lets an admin reveal the stored value (see Service.Reveal).
	RevealKey string
	RevealURL string
	Disabled  bool
	// Autofocus puts the cursor here after the fragment is swapped in (a new owner's name).
	Autofocus bool
}

// Option is one choice of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// ErrorID is the id of the field's message, for aria-describedby.
func (f FieldView) ErrorID() string { return f.Name + "-error" }

// HintID is the id of the field's hint, for aria-describedby.
func (f FieldView) HintID() string { return f.Name + "-hint" }

// DescribedBy lists the ids that describe the field: its message and its hint.
func (f FieldView) DescribedBy() string {
	ids := ""
	if f.Error != "" {
		ids = f.ErrorID()
	}
	if f.Hint != "" {
		if ids != "" {
			ids += " "
		}
		ids += f.HintID()
	}
	return ids
}

// inputSpec is how a field is typed in: kind, input type and hints for the browser.
type inputSpec struct {
	kind, typ, mode, autocomplete, hint string
	options                             func() []Option
}

const (
	hintMoney   = "US dollars, like 1234.50."
	hintPercent = "Percent, like 25 or 33.33."
)

// inputSpecs are keyed by field pattern, owner fields with "*" for the position. A field not
// listed is a plain text input.
var inputSpecs = map[string]inputSpec{
	"business.legal_name":          {autocomplete: "off"},
	"business.dba":                 {autocomplete: "off"},
	"business.entity_type":         {kind: "select", options: entityOptions},
	"business.tin":                 {mode: "numeric", hint: "The business's EIN, like 12-3456789; a sole proprietor may give an SSN."},
	"business.incorporation_date":  {typ: "date"},
	"business.incorporation_state": {kind: "select", options: stateOptions},
	"business.address.state":       {kind: "select", options: stateOptions},
	"business.address.postal_code": {mode: "numeric"},
	"business.phone":               {typ: "tel"},
	"business.email":               {typ: "email"},
	"business.website":             {typ: "url", hint: "Like https://example.com."},
	"business.mcc":                 {mode: "numeric", hint: "Merchant category code: 4 digits, like 5812."},
	"business.years_in_business":   {mode: "numeric"},
	"business.monthly_volume":      {mode: "decimal", hint: hintMoney},
	"business.average_ticket":      {mode: "decimal", hint: hintMoney},
	"business.highest_ticket":      {mode: "decimal", hint: hintMoney},
	"business.card_present_pct":    {mode: "decimal", hint: hintPercent},
	"business.keyed_pct":           {mode: "decimal", hint: hintPercent},
	"business.ecommerce_pct":       {mode: "decimal", hint: hintPercent},
	"owners.*.ownership_pct":       {mode: "decimal", hint: hintPercent},
	"owners.*.date_of_birth":       {typ: "date"},
	"owners.*.ssn":                 {mode: "numeric", hint: "Like 123-45-6789."},
	"owners.*.address.state":       {kind: "select", options: stateOptions},
	"owners.*.address.postal_code": {mode: "numeric"},
	"owners.*.phone":               {typ: "tel"},
	"owners.*.email":               {typ: "email"},
	"bank.routing_number":          {mode: "numeric", hint: "9 digits."},
	"bank.account_number":          {mode: "numeric", hint: "3 to 17 digits."},
	"bank.account_type":            {kind: "select", options: accountOptions},
	"contact.email":                {typ: "email", hint: "The hand-off e-mail goes to this address."},
	"contact.phone":                {typ: "tel"},
	FieldNotes:                     {kind: "textarea", hint: "Internal to the reseller; never sent to the processor or the merchant."},
	FieldOtherOwnersBelow25:        {kind: "checkbox"},
	FieldBankFromMerchant:          {kind: "checkbox", hint: "Tick this when you don't have the merchant's bank details: the processor's pages ask the merchant for them after the hand-off, and nothing below is sent."},
}

// specOf returns the input spec of a canonical field name.
func specOf(name string) inputSpec {
	pattern := name
	if _, sub := SplitOwnerField(name); sub != "" {
		pattern = "owners.*." + sub
	}
	s := inputSpecs[pattern]
	if s.kind == "" {
		s.kind = "input"
	}
	if s.typ == "" {
		s.typ = "text"
	}
	return s
}

func entityOptions() []Option {
	out := []Option{{Value: "", Label: "Choose…"}}
	for _, e := range EntityTypes() {
		out = append(out, Option{Value: string(e), Label: e.Title()})
	}
	return out
}

func stateOptions() []Option {
	out := []Option{{Value: "", Label: "Choose…"}}
	for _, s := range validation.USStateCodes() {
		out = append(out, Option{Value: s, Label: s})
	}
	return out
}

func accountOptions() []Option {
	return []Option{{Value: "", Label: "Choose…"}, {Value: string(AccountChecking), Label: "Checking"}, {Value: string(AccountSavings), Label: "Savings"}}
}

// WithSelection marks the option equal to value as selected; a value that is no option (typed
// in some other way) is added, so that nothing typed disappears from the form.
func WithSelection(opts []Option, value string) []Option {
	found := false
	for i := range opts {
		if opts[i].Value == value {
			opts[i].Selected = true
			found = true
		}
	}
	if !found && value != "" {
		opts = append(opts, Option{Value: value, Label: value, Selected: true})
	}
	return opts
}

// Input describes field name holding value, as the registry types it in: label, input
// kind and type, hints and choices (with value selected). The page adds the message,
// the mask and whether it may be changed.
func Input(name, value string) FieldView {
	spec := specOf(name)
	f := FieldView{
		Name: name, Label: FieldLabel(name), Value: value,
		Kind: spec.kind, Type: spec.typ, InputMode: spec.mode, Autocomplete: spec.autocomplete, Hint: spec.hint,
	}
	if spec.options != nil {
		f.Options = WithSelection(spec.options(), value)
	}
	return f
}
