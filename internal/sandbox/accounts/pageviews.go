package accounts

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// pageBase is what every merchant page shows around its own content.
type pageBase struct {
	ID      string
	Name    string
	Errors  []errorLink // the error summary: each entry links to its field
	Notice  string
	Pending *PendingRequest
}

// errorLink is one line of an error summary.
type errorLink struct{ Href, Text string }

// summarySection is one block of the application on the details page.
type summarySection struct {
	Title, EditURL, EditLabel string
	Rows                      []summaryRow
}

type summaryRow struct{ Label, Value string }

// formField is one input of a form.
type formField struct {
	ID, Name, Label, Input, Hint, Value, Error string
	Current                                    string // masked value a secret input replaces
	Options                                    []formOption
}

type formOption struct {
	Value, Label string
	Selected     bool
}

// detailsView is the data of the details page.
type detailsView struct {
	pageBase
	Action        string
	Sections      []summarySection
	Fields        []formField // the required details still missing
	BankLinkURL   string      // when bank details are among them
	ContinueLabel string
}

// editView is the data of a section's edit page.
type editView struct {
	pageBase
	Title, Action, BackURL, BankLinkURL string
	Fields                              []formField
}

// termsView is the data of the terms page.
type termsView struct {
	pageBase
	PricingCode, Action, Error string
}

// section is one editable part of the application: a top-level key, or
// one owner.
type section struct {
	Slug  string // in URLs: business, legalEntity, owner-1, banking, contact
	Title string
	Key   string // top-level key of the data
	Index string // "[0]" for the first owner, "" otherwise
}

// sectionsOf lists the sections of an application in page order: one per
// owner, at least one.
func sectionsOf(data map[string]any) []section {
	var out []section
	for _, key := range dataSections {
		if key != "owners" {
			out = append(out, section{Slug: key, Title: sectionTitle(key), Key: key})
			continue
		}
		owners, _ := data["owners"].([]any)
		for i := range max(len(owners), 1) {
			out = append(out, section{Slug: fmt.Sprintf("owner-%d", i+1), Title: fmt.Sprintf("Owner %d", i+1),
				Key: key, Index: fmt.Sprintf("[%d]", i)})
		}
	}
	return out
}

// findSection returns the section of a slug.
func findSection(data map[string]any, slug string) (section, bool) {
	for _, sec := range sectionsOf(data) {
		if sec.Slug == slug {
			return sec, true
		}
	}
	return section{}, false
}

// fields returns the leaves of a section with concrete paths.
func (s *Server) sectionFields(sec section) []fieldSpec {
	var out []fieldSpec
	for _, f := range s.fields {
		if f.Section != sec.Key {
			continue
		}
		f.Path = strings.Replace(f.Path, "[]", sec.Index, 1)
		out = append(out, f)
	}
	return out
}

// sectionTitle reads the label of a top-level section from data.go.
func sectionTitle(key string) string {
	if f, ok := structFields(reflect.TypeFor[applicationData]())[key]; ok {
		return f.Tag.Get("label")
	}
	return key
}

// missing lists the required details the application lacks, with concrete
// paths ("owners[0].ssn"). Only the first owner is required.
func (s *Server) missing(data map[string]any) []fieldSpec {
	var out []fieldSpec
	for _, f := range s.fields {
		if !f.Required {
			continue
		}
		f.Path = strings.Replace(f.Path, "[]", "[0]", 1)
		if v, ok := getPath(data, f.Path); !ok || text(v) == "" {
			out = append(out, f)
		}
	}
	return out
}

// fieldID is the HTML id of a field's input.
func fieldID(path string) string {
	return "f-" + strings.NewReplacer(".", "-", "[", "-", "]", "").Replace(path)
}

// summary lists the application section by section, values written for
// people, personal data masked.
func (s *Server) summary(a *appRecord, data map[string]any) []summarySection {
	var out []summarySection
	for _, sec := range sectionsOf(data) {
		ss := summarySection{Title: sec.Title, EditURL: pagePrefix + a.ID + "/edit/" + sec.Slug,
			EditLabel: "Change " + strings.ToLower(sec.Title)}
		for _, f := range s.sectionFields(sec) {
			if v, ok := getPath(data, f.Path); ok && text(v) != "" {
				ss.Rows = append(ss.Rows, summaryRow{Label: f.Label, Value: displayValue(f, v)})
			}
		}
		out = append(out, ss)
	}
	return out
}

// formFields builds the inputs of fields, from typed values after a failed
// post or from the stored values otherwise.
func formFields(fields []fieldSpec, data map[string]any, typed, errs map[string]string, ownerPrefix bool) []formField {
	var out []formField
	for _, f := range fields {
		stored, _ := getPath(data, f.Path)
		ff := formField{ID: fieldID(f.Path), Name: f.Path, Label: f.Label, Input: f.Input, Hint: f.Hint,
			Error: errs[f.Path]}
		if ownerPrefix && strings.HasPrefix(f.Path, "owners[") {
			ff.Label = "Owner: " + ff.Label
		}
		if v, ok := typed[f.Path]; ok {
			ff.Value = v
		} else {
			ff.Value = inputValue(f, stored)
		}
		if f.Secret && text(stored) != "" {
			ff.Current = mask(text(stored))
		}
		for _, o := range f.Options {
			ff.Options = append(ff.Options, formOption{Value: o.Value, Label: o.Label, Selected: o.Value == ff.Value})
		}
		out = append(out, ff)
	}
	return out
}

// errorSummary lists the messages of errs in the order of fields, each
// linking to its input.
func errorSummary(fields []fieldSpec, errs map[string]string) []errorLink {
	var out []errorLink
	for _, f := range fields {
		if msg, ok := errs[f.Path]; ok {
			out = append(out, errorLink{Href: "#" + fieldID(f.Path), Text: f.Label + ": " + msg})
		}
	}
	return out
}

// ownerNumber returns 1 for "owners[0]...", for messages.
func ownerNumber(path string) string {
	_, rest, ok := strings.Cut(path, "[")
	if !ok {
		return ""
	}
	n, err := strconv.Atoi(strings.SplitN(rest, "]", 2)[0])
	if err != nil {
		return ""
	}
	return strconv.Itoa(n + 1)
}
