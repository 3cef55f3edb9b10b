package accounts

import (
	"strconv"
	"strings"
)

// mergePatch applies patch to dst as a JSON merge patch (RFC 7386): objects
// merge key by key, null removes a key, and lists and plain values replace
// what was there. So a PATCH that sends "owners" replaces the whole list.
func mergePatch(dst, patch map[string]any) {
	for k, pv := range patch {
		switch pv := pv.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
			}
			mergePatch(dm, pv)
			dst[k] = dm
		default:
			dst[k] = withoutNulls(pv)
		}
	}
}

// withoutNulls drops null members from objects inside v, so a list sent with
// nulls is stored as if those members were absent.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, el := range v {
			if el != nil {
				out[k] = withoutNulls(el)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, el := range v {
			out[i] = withoutNulls(el)
		}
		return out
	}
	return v
}

// pathSegment is one step of a path like "owners[0].address.city".
type pathSegment struct {
	key   string
	index int // -1 when the segment has no index
}

func parsePath(path string) []pathSegment {
	parts := strings.Split(path, ".")
	out := make([]pathSegment, len(parts))
	for i, p := range parts {
		out[i] = pathSegment{key: p, index: -1}
		if k, rest, ok := strings.Cut(p, "["); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
			if err == nil {
				out[i] = pathSegment{key: k, index: n}
			}
		}
	}
	return out
}

// getPath reads the value at path, or reports false when any step is missing.
func getPath(data map[string]any, path string) (any, bool) {
	var cur any = data
	for _, seg := range parsePath(path) {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[seg.key]
		if !ok {
			return nil, false
		}
		if seg.index >= 0 {
			list, ok := cur.([]any)
			if !ok || seg.index >= len(list) {
				return nil, false
			}
			cur = list[seg.index]
		}
	}
	return cur, cur != nil
}

// setPath writes v at path, creating the objects and list entries on the way.
func setPath(data map[string]any, path string, v any) {
	segs := parsePath(path)
	cur := data
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg.index < 0 {
			if last {
				cur[seg.key] = v
				return
			}
			next, ok := cur[seg.key].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[seg.key] = next
			}
			cur = next
			continue
		}
		list, _ := cur[seg.key].([]any)
		for len(list) <= seg.index {
			list = append(list, map[string]any{})
		}
		cur[seg.key] = list
		if last {
			list[seg.index] = v
			return
		}
		next, ok := list[seg.index].(map[string]any)
		if !ok {
			next = map[string]any{}
			list[seg.index] = next
		}
		cur = next
	}
}

// deletePath removes the value at path, if there is one.
func deletePath(data map[string]any, path string) {
	segs := parsePath(path)
	var cur any = data
	for i, seg := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if i == len(segs)-1 && seg.index < 0 {
			delete(m, seg.key)
			return
		}
		cur = m[seg.key]
		if seg.index >= 0 {
			list, ok := cur.([]any)
			if !ok || seg.index >= len(list) {
				return
			}
			cur = list[seg.index]
		}
	}
}

// cloneJSON deep-copies decoded JSON, so a failed merge leaves the stored
// data untouched.
func cloneJSON(m map[string]any) map[string]any {
	return withoutNulls(m).(map[string]any)
}
