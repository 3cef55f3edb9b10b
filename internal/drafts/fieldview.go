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
	Kind      string
	Type      string // the input type: text, email, tel, date, url
	InputMode string
	// Format is how the page formats the value as it is typed (assets/js/format.js):
	// tin, ssn, phone, zip, money; "" for none. The server reads every format.
	Format       string
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
	kind, typ, mode, autocomplete, hint, format string
	options                                     func() []Option
}

// specOf returns the input spec of a canonical field name.
func specOf(name string) inputSpec {
	info, _ := lookupField(name)
	s := info.input
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
		Kind: spec.kind, Type: spec.typ, InputMode: spec.mode, Autocomplete: spec.autocomplete, Hint: spec.hint, Format: spec.format,
	}
	if spec.options != nil {
		f.Options = WithSelection(spec.options(), value)
	}
	return f
}
