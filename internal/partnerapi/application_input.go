package partnerapi

import (
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/workspace"
)

// Messages of refused input, beside the drafts' own.
const (
	msgUnknownField = "Unknown field: the schema of this object is closed."
	msgNotText      = "Must be a string."
	msgNotBoolean   = "Must be true or false."
	msgNotObject    = "Must be an object."
	msgNotList      = "Must be a list."
	msgNotUUID      = "Must be an id (a UUID)."
	msgNUL          = "Must not hold NUL characters."
	msgOwnerFixed   = "The owning rep cannot change through the API; an admin reassigns applications on its page."
	msgTooMany      = "Too many entries."
)

// maxOwnerEntries bounds the owners' list a request may hold before the drafts' own
// limit is checked, so a huge list costs nothing.
const maxOwnerEntries = 100

// node is one object of the input's schema: its fields, or its value.
type node struct {
	children map[string]*node
	leaf     *field
}

func (n *node) add(f *field) {
	cur := n
	for i, seg := range f.Path {
		if cur.children == nil {
			cur.children = map[string]*node{}
		}
		next := cur.children[seg]
		if next == nil {
			next = &node{}
			cur.children[seg] = next
		}
		if i == len(f.Path)-1 {
			next.leaf = f
		}
		cur = next
	}
}

// inputTrees are the schemas of an application's draft and of one owner.
var inputTrees = sync.OnceValues(func() (*node, *node) {
	app, owner := &node{}, &node{}
	fields := applicationFields()
	for i := range fields {
		if fields[i].Owner {
			owner.add(&fields[i])
		} else {
			app.add(&fields[i])
		}
	}
	return app, owner
})

// applicationInput is an application's create or update request, read.
type applicationInput struct {
	Change workspace.Change
	// OwnerID is the owning rep named on create.
	OwnerID *uuid.UUID
}

// reader walks a request's JSON against the schema, collecting refusals by pointer.
type reader struct {
	errs map[string]string
	edit drafts.Edit
}

func (r *reader) refuse(ptr, msg string) {
	if _, seen := r.errs[ptr]; !seen {
		r.errs[ptr] = msg
	}
}

// readApplication reads an application's body (create, or with create false a merge
// patch): unknown fields, wrong types and NUL characters are refused by pointer;
// null clears a value, as RFC 7396 has it.
func readApplication(body map[string]any, create bool) (applicationInput, error) {
	r := &reader{errs: map[string]string{}, edit: drafts.Edit{Values: map[string]string{}}}
	var in applicationInput
	appTree, _ := inputTrees()
	for _, key := range sortedAnyKeys(body) {
		v := body[key]
		ptr := "/" + escapePointer(key)
		switch key {
		case "ownerId":
			in.OwnerID = r.ownerID(ptr, v, create)
		case "pricingModelId":
			in.Change.Pricing = r.pricing(ptr, v)
		case jsonOwners:
			r.owners(ptr, v)
		default:
			child, known := appTree.children[key]
			if !known {
				r.refuse(ptr, msgUnknownField)
				continue
			}
			r.value(ptr, v, child, r.edit.Values)
		}
	}
	if len(r.errs) > 0 {
		return in, invalid(r.errs)
	}
	in.Change.Edit = r.edit
	return in, nil
}

func (r *reader) ownerID(ptr string, v any, create bool) *uuid.UUID {
	if !create {
		r.refuse(ptr, msgOwnerFixed)
		return nil
	}
	s, isText := v.(string)
	id, err := uuid.Parse(s)
	if !isText || err != nil {
		r.refuse(ptr, msgNotUUID)
		return nil
	}
	return &id
}

func (r *reader) pricing(ptr string, v any) *string {
	switch v := v.(type) {
	case nil:
		none := ""
		return &none
	case string:
		if _, err := uuid.Parse(v); err != nil {
			r.refuse(ptr, msgNotUUID)
			return nil
		}
		return &v
	}
	r.refuse(ptr, msgNotUUID)
	return nil
}

// value reads v at ptr against n into values, by canonical name (an owner's by the part
// after "owners.N.").
func (r *reader) value(ptr string, v any, n *node, values map[string]string) {
	if n.leaf != nil {
		if s, ok := r.leaf(ptr, v, n.leaf); ok {
			values[n.leaf.Canonical] = s
		}
		return
	}
	if v == nil {
		// null clears every field of the object, as if each were null.
		for _, key := range sortedNodeKeys(n.children) {
			r.value(ptr+"/"+key, nil, n.children[key], values)
		}
		return
	}
	obj, isObject := v.(map[string]any)
	if !isObject {
		r.refuse(ptr, msgNotObject)
		return
	}
	for _, key := range sortedAnyKeys(obj) {
		child, known := n.children[key]
		if !known {
			r.refuse(ptr+"/"+escapePointer(key), msgUnknownField)
			continue
		}
		r.value(ptr+"/"+key, obj[key], child, values)
	}
}

// leaf reads one value as the draft's text.
func (r *reader) leaf(ptr string, v any, f *field) (string, bool) {
	if f.Checkbox {
		switch v := v.(type) {
		case nil:
			return "false", true
		case bool:
			if v {
				return "true", true
			}
			return "false", true
		}
		r.refuse(ptr, msgNotBoolean)
		return "", false
	}
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		if strings.ContainsRune(v, 0) {
			r.refuse(ptr, msgNUL)
			return "", false
		}
		return v, true
	}
	r.refuse(ptr, msgNotText)
	return "", false
}

// owners reads the owners' list: null removes every owner; each entry names an owner by
// id or, without one, adds an owner.
func (r *reader) owners(ptr string, v any) {
	r.edit.OwnersSet = true
	if v == nil {
		return
	}
	list, isList := v.([]any)
	switch {
	case !isList:
		r.refuse(ptr, msgNotList)
		return
	case len(list) > maxOwnerEntries:
		r.refuse(ptr, msgTooMany)
		return
	}
	_, ownerTree := inputTrees()
	for i, entry := range list {
		at := ptr + "/" + itoa(i)
		obj, isObject := entry.(map[string]any)
		if !isObject {
			r.refuse(at, msgNotObject)
			continue
		}
		oe := drafts.OwnerEdit{Values: map[string]string{}}
		for _, key := range sortedAnyKeys(obj) {
			if key == jsonOwnerID {
				oe.ID = r.ownerKey(at+"/id", obj[key])
				continue
			}
			child, known := ownerTree.children[key]
			if !known {
				r.refuse(at+"/"+escapePointer(key), msgUnknownField)
				continue
			}
			r.value(at+"/"+key, obj[key], child, oe.Values)
		}
		r.edit.Owners = append(r.edit.Owners, oe)
	}
}

func (r *reader) ownerKey(ptr string, v any) string {
	if v == nil {
		return ""
	}
	s, isText := v.(string)
	if _, err := uuid.Parse(s); !isText || err != nil {
		r.refuse(ptr, msgNotUUID)
		return ""
	}
	return s
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedNodeKeys(m map[string]*node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
