package httpx

import "strings"

// Checkbox is a form's checkbox. It is ticked when the browser sent "true", "on", "1"
// or "yes", and not ticked for anything else or nothing. Binding it never fails, so a
// form is bound whatever a client put in it and the use case decides, after the
// user's rights: a form a person may not send is refused for that, never for its
// contents.
type Checkbox bool

// UnmarshalParam reads a posted value (echo's binder calls it).
func (c *Checkbox) UnmarshalParam(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "1", "yes":
		*c = true
	default:
		*c = false
	}
	return nil
}
