package drafts

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Edit is a change of a draft named field by field, from a client that sends structured
// data (the partner API) rather than one section of the form. Values are text as a rep
// would type them; checkboxes take "true" or "false".
type Edit struct {
	// Values sets fields outside the owners' list, by canonical name; "" clears.
	Values map[string]string
	// Owners, when not nil, is the owners' list after the edit, in order: an entry with
	// the ID of an owner of the draft changes that owner (fields it leaves out keep their
	// values), an entry without an ID adds an owner, and an owner left out is removed.
	Owners []OwnerEdit
	// OwnersSet says Owners was given (an empty list removes every owner).
	OwnersSet bool
}

// OwnerEdit is one owner of an Edit.
type OwnerEdit struct {
	// ID names an owner of the draft; "" adds a new one.
	ID string
	// Values sets the owner's fields by the part of the name after "owners.N." ("ssn",
	// "address.city"); "" clears.
	Values map[string]string
}

// Messages of an edit that cannot be applied.
const (
	msgUnknownOwner   = "No owner of this application has this id; leave the id out to add an owner."
	msgRepeatedOwner  = "This owner is listed twice."
	msgOwnerIDSetHere = "An owner's id is given by the portal; it cannot be changed."
)

// Apply makes the edit on d and returns the canonical names of the fields it set (owners
// at their new positions) and the problems that stop it: an unknown or repeated owner id,
// too many owners, a name that is not a field. newID gives new owners their ids.
func (e Edit) Apply(d *Draft, newID func() string) (set []string, errs FieldErrors) {
	errs = FieldErrors{}
	for _, name := range sortedKeys(e.Values) {
		if strings.HasPrefix(name, "owners.") || name == OwnerField(0, "id") {
			errs.Add(name, "Not a field of an application.")
			continue
		}
		if err := d.Set(name, e.Values[name]); err != nil {
			errs.Add(name, "Not a field of an application.")
			continue
		}
		set = append(set, name)
	}
	if e.OwnersSet {
		set = append(set, e.applyOwners(d, newID, errs)...)
	}
	if len(errs) == 0 {
		errs = nil
	}
	return set, errs
}

// applyOwners rebuilds d's owners from e.Owners and returns the fields it set.
func (e Edit) applyOwners(d *Draft, newID func() string, errs FieldErrors) []string {
	if len(e.Owners) > MaxOwners {
		errs.Add(FieldOwners, "An application can list at most "+strconv.Itoa(MaxOwners)+" owners.")
		return nil
	}
	var set []string
	owners := make([]Owner, 0, len(e.Owners))
	seen := map[string]bool{}
	for i, oe := range e.Owners {
		o, ok := ownerFor(d, oe.ID, newID)
		switch {
		case !ok:
			errs.Add(OwnerField(i, "id"), msgUnknownOwner)
		case seen[o.ID]:
			errs.Add(OwnerField(i, "id"), msgRepeatedOwner)
		}
		seen[o.ID] = true
		one := Draft{Owners: []Owner{o}}
		for _, sub := range sortedKeys(oe.Values) {
			if sub == "id" {
				errs.Add(OwnerField(i, "id"), msgOwnerIDSetHere)
				continue
			}
			if err := one.Set(OwnerField(0, sub), oe.Values[sub]); err != nil {
				errs.Add(OwnerField(i, sub), "Not a field of an owner.")
				continue
			}
			set = append(set, OwnerField(i, sub))
		}
		owners = append(owners, one.Owners[0])
	}
	d.Owners = owners
	return set
}

// ownerFor is the owner an entry names: a copy of the draft's owner with that id, or a
// new one; false for an id the draft does not hold.
func ownerFor(d *Draft, id string, newID func() string) (Owner, bool) {
	if id == "" {
		return Owner{ID: newID()}, true
	}
	if o, _, ok := d.Owner(id); ok {
		return *o, true
	}
	return Owner{ID: id}, false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Leaves lists the canonical names of every field of a draft with one owner, in form
// order ("owners.0.ssn" standing for every owner's): the fields a structured client may
// set. Rooms that name fields in another way (the partner API's JSON) derive their
// names from it, so a field added to the registry reaches them.
func Leaves() []string {
	one := Draft{Owners: []Owner{{}}}
	return one.FieldNames()
}

// IsSensitive reports whether a canonical field name holds personal data (SSN, TIN,
// account number): encrypted at rest, masked when read.
func IsSensitive(field string) bool {
	info, _ := lookupField(field)
	return info.sensitive
}

// IsCheckbox reports whether a canonical field name is a yes-or-no field.
func IsCheckbox(field string) bool {
	one := Draft{Owners: []Owner{{}}}
	v, err := one.lookup(field, false)
	return err == nil && v.Kind() == reflect.Bool
}
