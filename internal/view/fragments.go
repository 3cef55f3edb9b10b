package view

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"html/template"
	"math"
	"reflect"
	"sync"
	"time"
)

// maxFragments bounds the fragment cache: about 10 MB of table rows. When it is full it
// starts again empty, which costs one render of each fragment shown next.
const maxFragments = 10_000

// fragments remembers the HTML of partials rendered through the "cached" template
// function, by the partial's name and the whole content of its dot. A fragment is only
// ever reused for exactly the same input, so nothing in it can be stale; what it saves is
// html/template's cost (each action a reflective call of its escaper), which made up most
// of a list page's CPU when its 25 rows were rendered anew for every request.
type fragments struct {
	mu sync.RWMutex
	m  map[string]template.HTML
}

// render returns the partial name executed on dot, from the cache when the same partial
// was rendered with an equal dot before. A partial rendered this way must depend on its
// dot alone (and on template functions that depend on their arguments alone).
func (f *fragments) render(t *template.Template, name string, dot any) (template.HTML, error) {
	key, err := fingerprint(name, dot)
	if err != nil {
		return "", err
	}
	f.mu.RLock()
	html, ok := f.m[key]
	f.mu.RUnlock()
	if ok {
		return html, nil
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, dot); err != nil {
		return "", err
	}
	html = template.HTML(buf.String()) // rendered by html/template, escaped in HTML text context
	f.mu.Lock()
	if f.m == nil || len(f.m) >= maxFragments {
		f.m = make(map[string]template.HTML, 1024)
	}
	f.m[key] = html
	f.mu.Unlock()
	return html, nil
}

// fingerprint encodes name and every value reachable from dot (fields, pointed-to values,
// elements), with lengths and markers so that different inputs never encode alike. It
// reads fields by reflection, so a field added later takes part without anyone updating
// a list; a kind it cannot encode (a map, a func, a channel) is an error rather than a
// silently incomplete key.
func fingerprint(name string, dot any) (string, error) {
	b := make([]byte, 0, 512)
	b = appendString(b, name)
	b, err := appendValue(b, reflect.ValueOf(dot))
	return string(b), err
}

var timeType = reflect.TypeFor[time.Time]()

func appendValue(b []byte, v reflect.Value) ([]byte, error) {
	if !v.IsValid() {
		return append(b, 'n'), nil
	}
	if v.Type() == timeType {
		return appendTime(b, v)
	}
	if scalar, ok := appendScalar(b, v); ok {
		return scalar, nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, 'n'), nil
		}
		return appendValue(append(b, 'p'), v.Elem())
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, 'n'), nil
		}
		return appendEach(binary.AppendUvarint(append(b, 'a'), uint64(v.Len())), v.Len(), v.Index)
	case reflect.Struct:
		return appendEach(binary.AppendUvarint(append(b, '{'), uint64(v.NumField())), v.NumField(), v.Field)
	}
	return b, fmt.Errorf("view: a cached fragment's dot holds a %s, which cannot be part of its key", v.Type())
}

// appendTime encodes a time by its instant and its zone's offset: the same
// instant shown in another zone renders differently.
func appendTime(b []byte, v reflect.Value) ([]byte, error) {
	if !v.CanInterface() {
		return b, fmt.Errorf("view: a cached fragment's dot holds a time in an unexported field")
	}
	t, _ := v.Interface().(time.Time)
	_, offset := t.Zone()
	b = append(b, 't')
	b = binary.AppendVarint(b, t.UnixNano())
	return binary.AppendVarint(b, int64(offset)), nil
}

// appendScalar encodes a string, a boolean or a number; ok is false for
// any other kind.
func appendScalar(b []byte, v reflect.Value) (_ []byte, ok bool) {
	switch v.Kind() {
	case reflect.String:
		return appendString(append(b, 's'), v.String()), true
	case reflect.Bool:
		if v.Bool() {
			return append(b, 'T'), true
		}
		return append(b, 'F'), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(append(b, 'i'), v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(append(b, 'u'), v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return binary.AppendUvarint(append(b, 'f'), math.Float64bits(v.Float())), true
	}
	return b, false
}

// appendEach encodes the n elements or fields that at returns, in order.
func appendEach(b []byte, n int, at func(int) reflect.Value) ([]byte, error) {
	var err error
	for i := range n {
		if b, err = appendValue(b, at(i)); err != nil {
			return b, err
		}
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
