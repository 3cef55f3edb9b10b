package view

import (
	"encoding/gob"
	"html/template"
	"time"
)

func init() {
	// Flashes live in the session, which scs encodes with gob.
	gob.Register([]Flash{})
}

// timeTag is a <time> element for t (a time.Time or *time.Time), "" for none: what
// <time datetime="{{isoTime .}}">{{formatTime .}}</time> writes, in one call rather than
// four (each action of html/template costs a reflective call of its escaper, and a list
// page holds hundreds). Its text is marked like formatTime's, for the renderer to
// write in the viewer's zone (localtime.go).
func timeTag(kind byte) func(any) template.HTML {
	return func(t any) template.HTML {
		var v time.Time
		switch x := t.(type) {
		case time.Time:
			v = x
		case *time.Time:
			if x != nil {
				v = *x
			}
		}
		if v.IsZero() {
			return ""
		}
		v = v.UTC()
		b := make([]byte, 0, 80)
		b = append(b, `<time datetime="`...)
		b = v.AppendFormat(b, time.RFC3339)
		b = append(b, `">`...)
		b = append(b, markStart...)
		b = append(b, kind)
		b = v.AppendFormat(b, time.RFC3339)
		b = append(b, markEnd...)
		b = append(b, `</time>`...)
		return template.HTML(b) // digits, separators and the private-use marks only
	}
}

func baseFuncs() template.FuncMap {
	return template.FuncMap{
		"timeTag": timeTag(kindDateTime),
		"dateTag": timeTag(kindDate),
		"formatTime": func(t any) string {
			switch v := t.(type) {
			case time.Time:
				if v.IsZero() {
					return ""
				}
				return markTime(kindDateTime, v)
			case *time.Time:
				if v == nil || v.IsZero() {
					return ""
				}
				return markTime(kindDateTime, *v)
			}
			return ""
		},
		"formatDate": func(t time.Time) string { return markTime(kindDate, t) },
		"isoTime":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"duration":   Duration,
		"linkify":    linkify,
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"dict": func(kv ...any) map[string]any {
			m := make(map[string]any, len(kv)/2)
			for i := 0; i+1 < len(kv); i += 2 {
				k, _ := kv[i].(string)
				m[k] = kv[i+1]
			}
			return m
		},
		"statusText": StatusText,
	}
}
