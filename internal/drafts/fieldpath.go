package drafts

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// ErrUnknownField means a name is not a canonical field name of a draft (a form binder
// should ignore such keys, such as the CSRF token).
var ErrUnknownField = errors.New("drafts: unknown field")

// Get returns the text of the field with the given canonical name ("true"/"false" for the
// control-person checkbox), or ErrUnknownField.
func (d *Draft) Get(field string) (string, error) {
	v, err := d.lookup(field, false)
	if err != nil {
		return "", err
	}
	if v.Kind() == reflect.Bool {
		return strconv.FormatBool(v.Bool()), nil
	}
	return v.String(), nil
}

// Set stores a submitted form value in the field with the given canonical name, exactly as
// typed. The control-person checkbox takes "true", "on", "1" or "yes" as checked and
// "", "false", "off", "0" or "no" as unchecked. Naming an owner index past the end adds empty
// owners up to it (form keys arrive in any order), at most MaxOwners; call EnsureOwnerIDs after
// binding to give new owners ids.
func (d *Draft) Set(field, value string) error {
	v, err := d.lookup(field, true)
	if err != nil {
		return err
	}
	if v.Kind() == reflect.Bool {
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "true", "on", "1", "yes":
			v.SetBool(true)
		case "", "false", "off", "0", "no":
			v.SetBool(false)
		default:
			return fmt.Errorf("drafts: %s: not a checkbox value", field)
		}
		return nil
	}
	v.SetString(value)
	return nil
}

// lookup walks a canonical name through the draft by JSON names. It only reaches leaves
// (text and checkbox fields); grow lets it append owners up to the index named.
func (d *Draft) lookup(field string, grow bool) (reflect.Value, error) {
	unknown := func() (reflect.Value, error) { return reflect.Value{}, fmt.Errorf("%w %q", ErrUnknownField, field) }
	v := reflect.ValueOf(d).Elem()
	for _, seg := range strings.Split(field, ".") {
		switch v.Kind() {
		case reflect.Struct:
			f, ok := fieldByJSONName(v, seg)
			if !ok {
				return unknown()
			}
			v = f
		case reflect.Slice:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= MaxOwners || strconv.Itoa(n) != seg {
				return unknown()
			}
			if n >= v.Len() {
				if !grow {
					return unknown()
				}
				v.Set(reflect.AppendSlice(v, reflect.MakeSlice(v.Type(), n+1-v.Len(), n+1-v.Len())))
			}
			v = v.Index(n)
		default:
			return unknown()
		}
	}
	if v.Kind() != reflect.String && v.Kind() != reflect.Bool {
		return unknown() // a section or an owner, not a field
	}
	return v, nil
}

// fieldByJSONName finds the struct field whose json name is name.
func fieldByJSONName(v reflect.Value, name string) (reflect.Value, bool) {
	i, ok := jsonFields()[v.Type()][name]
	if !ok {
		return reflect.Value{}, false
	}
	return v.Field(i), true
}

// jsonFields maps each struct type of a draft to its fields' positions by json name,
// worked out once: Set and Get run for every value of every imported row.
var jsonFields = sync.OnceValue(func() map[reflect.Type]map[string]int {
	out := map[reflect.Type]map[string]int{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t] != nil {
			return
		}
		fields := make(map[string]int, t.NumField())
		out[t] = fields
		for i := range t.NumField() {
			fields[jsonName(t.Field(i))] = i
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[Draft]())
	return out
})

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// FieldNames returns the canonical names of every field of d, owners expanded, in form order.
// A binder can walk it to read a submitted form; tests use it to check that every field has
// a label and a place in the order.
func (d *Draft) FieldNames() []string {
	var names []string
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				walk(prefix+jsonName(v.Type().Field(i))+".", v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(prefix+strconv.Itoa(i)+".", v.Index(i))
			}
		default:
			names = append(names, strings.TrimSuffix(prefix, "."))
		}
	}
	walk("", reflect.ValueOf(d).Elem())
	return names
}

// EnsureOwnerIDs gives every owner without an id, or with an id already used by an earlier
// owner, a fresh one from newID (pass uuid.NewString). The store calls it before saving:
// owner ids bind encrypted SSNs to their owner.
func (d *Draft) EnsureOwnerIDs(newID func() string) {
	seen := make(map[string]bool, len(d.Owners))
	for i := range d.Owners {
		for d.Owners[i].ID == "" || seen[d.Owners[i].ID] {
			d.Owners[i].ID = newID()
		}
		seen[d.Owners[i].ID] = true
	}
}
