package accounts

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// fieldSpec describes one leaf of the application data, read from the tags
// of the types in data.go.
type fieldSpec struct {
	Path     string // with "owners[]" for the list, e.g. "owners[].ssn"
	Kind     reflect.Kind
	Section  string // top-level key, e.g. "business"
	Label    string
	Input    string
	Options  []option
	Display  string // phone, amount, date, percent, years or "" (see data.go)
	Hint     string
	Required bool
	Secret   bool
}

// option is one choice of a select input.
type option struct{ Value, Label string }

// optionLabel returns the label of value, or value itself.
func (f fieldSpec) optionLabel(value string) string {
	for _, o := range f.Options {
		if o.Value == value {
			return o.Label
		}
	}
	return value
}

// catalog lists every leaf of applicationData in declaration order.
func catalog() []fieldSpec {
	var out []fieldSpec
	walkCatalog(reflect.TypeFor[applicationData](), "", "", "", true, &out)
	return out
}

// walkCatalog appends the leaves of struct type t to out.
func walkCatalog(t reflect.Type, prefix, section, parentLabel string, parentRequired bool, out *[]fieldSpec) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		path := joinPath(prefix, name)
		sec := section
		if sec == "" {
			sec = name
		}
		required := parentRequired && (prefix == "" || f.Tag.Get("required") == "true")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			walkCatalog(ft.Elem(), path+"[]", sec, "", required, out)
		case ft.Kind() == reflect.Struct:
			label := ""
			if prefix != "" {
				label = f.Tag.Get("label")
			}
			walkCatalog(ft, path, sec, label, required, out)
		default:
			*out = append(*out, leafSpec(f, ft.Kind(), path, sec, parentLabel, required))
		}
	}
}

// leafSpec describes one leaf field from its struct tags (see data.go).
func leafSpec(f reflect.StructField, kind reflect.Kind, path, section, parentLabel string, parentRequired bool) fieldSpec {
	label := f.Tag.Get("label")
	if parentLabel != "" {
		label += " (" + strings.ToLower(parentLabel) + ")"
	}
	spec := fieldSpec{
		Path: path, Kind: kind, Section: section, Label: label,
		Input: cmp.Or(f.Tag.Get("input"), "text"), Hint: f.Tag.Get("hint"),
		Required: parentRequired && f.Tag.Get("required") == "true",
		Secret:   f.Tag.Get("secret") == "true",
		Display:  f.Tag.Get("display"),
	}
	if o := f.Tag.Get("options"); o != "" {
		for _, item := range strings.Split(o, "|") {
			v, l, _ := strings.Cut(item, "=")
			spec.Options = append(spec.Options, option{Value: v, Label: l})
		}
	}
	return spec
}

// jsonName returns the JSON key of a struct field, or "" when it has none.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	return tag
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// shapeChecker checks decoded JSON against a schema type and applies the
// format rules of validate.go to every leaf.
type shapeChecker struct {
	now time.Time
}

// check reports the first problem of v against type t, naming the field.
// JSON null is accepted anywhere: in a PATCH it removes the field.
func (c shapeChecker) check(v any, t reflect.Type, path string) *kit.APIError {
	if v == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return c.checkObject(v, t, path)
	case reflect.Slice:
		return c.checkList(v, t, path)
	default:
		return c.checkLeaf(v, t.Kind(), path)
	}
}

// checkObject checks each field of an object, in key order, refusing one
// struct type t does not have.
func (c shapeChecker) checkObject(v any, t reflect.Type, path string) *kit.APIError {
	m, ok := v.(map[string]any)
	if !ok {
		return kit.FieldError(path, "must be an object")
	}
	fields := structFields(t)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f, ok := fields[k]
		if !ok {
			return kit.FieldError(joinPath(path, k), "unknown field")
		}
		if err := c.check(m[k], f.Type, joinPath(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// checkList checks each element of a list against t's element type.
func (c shapeChecker) checkList(v any, t reflect.Type, path string) *kit.APIError {
	list, ok := v.([]any)
	if !ok {
		return kit.FieldError(path, "must be a list")
	}
	for i, el := range list {
		if err := c.check(el, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkLeaf checks a leaf's JSON type, then the format rule of its path.
func (c shapeChecker) checkLeaf(v any, kind reflect.Kind, path string) *kit.APIError {
	if msg := leafType(v, kind, path); msg != "" {
		return kit.FieldError(path, msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return nil // an empty text means "not given"; the pages ask for it
	}
	if r := ruleFor(path); r != nil {
		if msg := r(v, c.now); msg != "" {
			return kit.FieldError(path, msg)
		}
	}
	return nil
}

// leafType checks the JSON type of a leaf value at path, and a text value against its
// bounds (bounds.go).
func leafType(v any, kind reflect.Kind, path string) string {
	switch kind {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return "must be a string"
		}
		if msg := textProblem(path, s); msg != "" {
			return msg
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return "must be a whole number"
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if _, err := n.Float64(); !ok || err != nil {
			return "must be a number"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
	}
	return ""
}

// structFields maps JSON keys to the fields of t, including the fields of
// embedded structs.
func structFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range structFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name := jsonName(f); name != "" {
			out[name] = f
		}
	}
	return out
}
