package partnerapi

import (
	"strings"
	"sync"
	"unicode"

	"github.com/payportal/portal/internal/drafts"
)

// field is one value of an application's draft as the API names it. The names come
// from the drafts' field registry (drafts.Leaves), each segment in camelCase, so a field
// added to the registry reaches the API; a test holds the OpenAPI document to the same
// list.
type field struct {
	// Canonical is the registry's name ("business.legal_name"); for an owner's field the
	// part after "owners.N." ("address.city").
	Canonical string
	// Path is the JSON path ("business", "legalName"); for an owner's field, within the owner.
	Path                       []string
	Owner, Checkbox, Sensitive bool
}

// JSON names beside the draft's fields.
const (
	jsonOwners  = "owners"
	jsonOwnerID = "id"
	// last4Suffix names the read-only last four digits of a write-only number.
	last4Suffix = "Last4"
)

// applicationFields lists the draft's fields as the API names them, in form order.
var applicationFields = sync.OnceValue(func() []field {
	var out []field
	for _, name := range drafts.Leaves() {
		f := field{Checkbox: drafts.IsCheckbox(name), Sensitive: drafts.IsSensitive(name)}
		if sub, ok := strings.CutPrefix(name, "owners.0."); ok {
			if sub == jsonOwnerID {
				continue // the owner's id is the key owners are matched by, not a value
			}
			f.Canonical, f.Owner = sub, true
		} else {
			f.Canonical = name
		}
		for _, seg := range strings.Split(f.Canonical, ".") {
			f.Path = append(f.Path, camel(seg))
		}
		out = append(out, f)
	}
	return out
})

// camel turns a registry segment into its JSON name: "postal_code" is "postalCode",
// "other_owners_below_25" is "otherOwnersBelow25".
func camel(seg string) string {
	var b strings.Builder
	up := false
	for i, r := range seg {
		switch {
		case r == '_':
			up = true
		case up && i > 0:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pointerOf turns a canonical field name or group anchor of a message into the JSON
// pointer of the request's value it concerns ("owners.1.ssn" is "/owners/1/ssn").
func pointerOf(name string) string {
	switch {
	case name == drafts.FieldPricingModel:
		return "/pricingModelId"
	case name == drafts.FieldCardMix:
		return "/business"
	case strings.HasPrefix(name, "documents."):
		return "/documents/" + strings.TrimPrefix(name, "documents.")
	}
	segs := strings.Split(name, ".")
	for i, s := range segs {
		segs[i] = camel(s)
	}
	return "/" + strings.Join(segs, "/")
}
