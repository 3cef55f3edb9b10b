package submission

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/payportal/portal/internal/drafts"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// SentSection is one group of what was sent upstream, for the read-only view.
type SentSection struct {
	Title string
	Rows  []SentRow
}

// SentRow is one value as sent. Personal numbers are already masked.
type SentRow struct {
	Label, Value string
	// Masked marks a personal number shown by its last four digits.
	Masked bool
}

// sentSections lays out masked upstream data from the field registry: section by section
// and field by field in the order of the form, each value under its form label, read from
// the upstream field the registry says it is sent as (drafts.Field.SentAs). Empty values are
// left out, as they were not sent.
func sentSections(d *upstream.ApplicationData) []SentSection {
	if d == nil {
		return nil
	}
	values := sentValues(d)
	var out []SentSection
	add := func(title string, rows []SentRow) {
		if len(rows) > 0 {
			out = append(out, SentSection{Title: title, Rows: rows})
		}
	}
	add(drafts.SectionTitle(drafts.SectionBusiness), sentRows(values, drafts.Fields(drafts.SectionBusiness), -1))
	owners := drafts.Fields(drafts.SectionOwners)
	for i := range d.Owners {
		add("Owner "+strconv.Itoa(i+1), sentRows(values, owners, i))
	}
	if d.Banking != nil {
		add(drafts.SectionTitle(drafts.SectionBank), sentRows(values, drafts.Fields(drafts.SectionBank), -1))
	} else {
		// Nothing was sent: the rep left the account to the merchant.
		add(drafts.SectionTitle(drafts.SectionBank), []SentRow{{Label: "Account", Value: "Not sent: the merchant enters it in the processor's pages"}})
	}
	add(drafts.SectionTitle(drafts.SectionContact), sentRows(values, drafts.Fields(drafts.SectionContact), -1))
	return out
}

// sentRows reads the fields' values from the sent data; owner is the owner's position for
// owner fields, -1 otherwise.
func sentRows(values map[string]any, fields []drafts.Field, owner int) []SentRow {
	var rows []SentRow
	for _, f := range fields {
		if f.SentAs == "" {
			continue
		}
		path := f.SentAs
		if owner >= 0 {
			path = strings.Replace(path, "*", strconv.Itoa(owner), 1)
		}
		if text := sentText(f, values[path]); text != "" {
			rows = append(rows, SentRow{Label: f.Label, Value: text, Masked: f.Sensitive})
		}
	}
	return rows
}

// sentText writes one sent value for people, as the field registry writes the
// field's values (drafts.Field.Display): the processor's pages write them alike.
func sentText(f drafts.Field, v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "Yes"
		}
	case float64:
		return f.Display(strconv.FormatFloat(x, 'f', -1, 64))
	case string:
		if f.Pattern == "business.entity_type" {
			return entityTitle(x) // the processor's value, not the form's
		}
		return f.Display(x)
	}
	return ""
}

// sentValues flattens the sent data into its JSON paths ("owners.0.ssn").
func sentValues(d *upstream.ApplicationData) map[string]any {
	b, err := json.Marshal(d)
	if err != nil {
		return nil // plain strings, numbers and booleans always encode
	}
	var data any
	if err := json.Unmarshal(b, &data); err != nil {
		return nil
	}
	return leaves(data)
}

// leaves flattens JSON into "a.b.0.c" paths of its non-object values.
func leaves(v any) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(prefix+k+".", c)
			}
		case []any:
			for i, c := range x {
				walk(prefix+strconv.Itoa(i)+".", c)
			}
		default:
			out[strings.TrimSuffix(prefix, ".")] = v
		}
	}
	walk("", v)
	return out
}

// entityTitle names an upstream legalEntity.type as the form does.
func entityTitle(upstreamType string) string {
	for e, v := range entityTypeValues {
		if v == upstreamType {
			return e.Title()
		}
	}
	return upstreamType
}
