package accounts

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// detailsView is the data of the details page.
type detailsView struct {
	ID, Action, Error string
	Sections          []summarySection
	Fields            []formField
}

// summarySection is one block of details the partner supplied.
type summarySection struct {
	Title string
	Rows  []summaryRow
}

type summaryRow struct{ Label, Value string }

// formField is one input for a missing detail.
type formField struct {
	ID, Name, Label, Input, Hint, Value, Error string
	Options                                    []formOption
}

type formOption struct {
	Value    string
	Selected bool
}

// termsView is the data of the terms page.
type termsView struct {
	ID, PricingCode, Action, Error string
}

// missingLocked lists the required details the application lacks, with
// concrete paths ("owners[0].ssn"). Only the first owner is required.
func (s *Server) missingLocked(a *application) []fieldSpec {
	var out []fieldSpec
	for _, f := range s.fields {
		if !f.Required {
			continue
		}
		f.Path = strings.Replace(f.Path, "[]", "[0]", 1)
		if v, ok := getPath(a.data, f.Path); !ok || v == "" {
			out = append(out, f)
		}
	}
	return out
}

// detailsViewLocked builds the details page: the supplied details and an
// input for each missing one, with typed values and messages after a failed
// post. The caller holds s.mu.
func (s *Server) detailsViewLocked(a *application, values, errs map[string]string, formErr string) detailsView {
	v := detailsView{ID: a.id, Action: pagePrefix + a.id, Error: formErr, Sections: s.summaryLocked(a)}
	for _, f := range s.missingLocked(a) {
		ff := formField{
			ID: "f-" + strings.NewReplacer(".", "-", "[", "-", "]", "").Replace(f.Path), Name: f.Path,
			Label: f.Label, Input: f.Input, Hint: f.Hint, Value: values[f.Path], Error: errs[f.Path],
		}
		if strings.HasPrefix(f.Path, "owners[") {
			ff.Label = "Owner: " + ff.Label
		}
		for _, o := range f.Options {
			ff.Options = append(ff.Options, formOption{Value: o, Selected: o == ff.Value})
		}
		v.Fields = append(v.Fields, ff)
	}
	return v
}

// summaryLocked lists the supplied details section by section (each owner
// a section of its own), showing only the last four characters of secret
// ones. The caller holds s.mu.
func (s *Server) summaryLocked(a *application) []summarySection {
	var out []summarySection
	for _, key := range dataSections {
		if key != "owners" {
			out = s.appendSection(out, a, key, sectionTitle(key), "")
			continue
		}
		owners, _ := a.data["owners"].([]any)
		for i := range owners {
			out = s.appendSection(out, a, key, fmt.Sprintf("Owner %d", i+1), fmt.Sprintf("[%d]", i))
		}
	}
	return out
}

// appendSection adds the supplied fields of one section, if any; index
// replaces "[]" in owner paths.
func (s *Server) appendSection(out []summarySection, a *application, key, title, index string) []summarySection {
	sec := summarySection{Title: title}
	for _, f := range s.fields {
		if f.Section != key {
			continue
		}
		if v, ok := getPath(a.data, strings.Replace(f.Path, "[]", index, 1)); ok {
			sec.Rows = append(sec.Rows, summaryRow{Label: f.Label, Value: display(v, f.Secret)})
		}
	}
	if len(sec.Rows) == 0 {
		return out
	}
	return append(out, sec)
}

// sectionTitle reads the label of a top-level section from data.go.
func sectionTitle(key string) string {
	if f, ok := structFields(reflect.TypeFor[applicationData]())[key]; ok {
		return f.Tag.Get("label")
	}
	return key
}

// display writes a stored value for the summary.
func display(v any, secret bool) string {
	var s string
	switch v := v.(type) {
	case bool:
		s = map[bool]string{true: "Yes", false: "No"}[v]
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		s = fmt.Sprint(v)
	}
	if secret {
		if len(s) <= 4 {
			return "••••"
		}
		return "•••• " + s[len(s)-4:]
	}
	return s
}

// parseInput turns a form value into the stored value of field f, or
// returns the message to show beside the field.
func parseInput(f fieldSpec, raw string, now time.Time) (any, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, "This detail is required."
	}
	var v any = raw
	switch f.Kind {
	case reflect.Int:
		if _, err := strconv.Atoi(raw); err != nil {
			return nil, "Must be a whole number."
		}
		v = json.Number(raw)
	case reflect.Float64:
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return nil, "Must be a number."
		}
		v = json.Number(raw)
	}
	if len(f.Options) > 0 && !slices.Contains(f.Options, raw) {
		return nil, "Choose one of the options."
	}
	if msg := leafType(v, f.Kind); msg != "" {
		return nil, sentence(msg)
	}
	if r := ruleFor(f.Path); r != nil {
		if msg := r(v, now); msg != "" {
			return nil, sentence(msg)
		}
	}
	return v, ""
}

// sentence capitalises a rule message and ends it with a full stop.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:] + "."
}

// termsViewLocked builds the terms page. The caller holds s.mu.
func (s *Server) termsViewLocked(a *application, errMsg string) termsView {
	return termsView{ID: a.id, PricingCode: a.pricingCode, Action: pagePrefix + a.id + "/terms", Error: errMsg}
}
