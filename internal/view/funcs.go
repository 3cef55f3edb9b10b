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

func baseFuncs() template.FuncMap {
	return template.FuncMap{
		// formatTime and formatDate show an instant in the viewer's time
		// zone (see localtime.go).
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
