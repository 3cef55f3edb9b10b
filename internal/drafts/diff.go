package drafts

import (
	"strconv"
	"strings"
)

// ChangedFields names the fields whose value differs between two versions of a draft, in
// form order, for the audit trail. Owners are matched by id, so removing one owner does not
// make every later owner look changed; added and removed owners appear as the pseudo-fields
// "owners.N.added" and "owners.N.removed".
func ChangedFields(before, after Draft) []string {
	old := flattenByOwnerID(&before)
	var changed []string
	seenOwners := make(map[string]bool, len(after.Owners))
	for _, name := range after.FieldNames() {
		if isOwnerIDField(name) {
			continue
		}
		key := ownerKey(&after, name)
		v, _ := after.Get(name)
		prev, existed := old[key]
		if owner := ownerOf(&after, name); owner != "" {
			seenOwners[owner] = true
			if _, _, had := before.Owner(owner); !had {
				continue // reported once below as added
			}
		}
		if !existed || prev != v {
			changed = append(changed, name)
		}
	}
	for i, o := range after.Owners {
		if _, _, had := before.Owner(o.ID); !had {
			changed = append(changed, OwnerField(i, OwnerAdded))
		}
	}
	for i, o := range before.Owners {
		if _, _, kept := after.Owner(o.ID); !kept {
			changed = append(changed, OwnerField(i, OwnerRemoved))
		}
	}
	return changed
}

// flattenByOwnerID maps every field of d to its value, owner fields keyed by owner id.
func flattenByOwnerID(d *Draft) map[string]string {
	out := make(map[string]string)
	for _, name := range d.FieldNames() {
		v, _ := d.Get(name)
		out[ownerKey(d, name)] = v
	}
	return out
}

// ownerKey turns "owners.2.ssn" into "owners#<id of owner 2>.ssn"; other names stay.
func ownerKey(d *Draft, name string) string {
	if id := ownerOf(d, name); id != "" {
		_, sub := SplitOwnerField(name)
		return "owners#" + id + "." + sub
	}
	return name
}

// ownerOf returns the id of the owner an owner field belongs to, or "".
func ownerOf(d *Draft, name string) string {
	i, _ := SplitOwnerField(name)
	if i < 0 || i >= len(d.Owners) {
		return ""
	}
	return d.Owners[i].ID
}

// SplitOwnerField splits "owners.2.address.city" into 2 and "address.city"; other names
// give -1.
func SplitOwnerField(name string) (int, string) {
	rest, ok := strings.CutPrefix(name, "owners.")
	if !ok {
		return -1, ""
	}
	num, sub, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return -1, ""
	}
	return n, sub
}

func isOwnerIDField(name string) bool {
	_, sub := SplitOwnerField(name)
	return sub == "id"
}

// Owners added or removed are recorded as the pseudo-fields "owners.N.added" and
// "owners.N.removed" (N the position before removal, after addition).
const (
	OwnerAdded   = "added"
	OwnerRemoved = "removed"
)
