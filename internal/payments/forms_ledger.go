package payments

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
)

// LedgerForm is the ledger's filter form (a GET: the address can be shared
// and bookmarked). The bar shows the dates, the status and the search; the
// rest are under "More filters".
type LedgerForm struct {
	From   string `query:"from"`
	To     string `query:"to"`
	Status string `query:"status"`
	// Q searches the reference, or the last four digits when it is four
	// digits.
	Q      string `query:"q"`
	Type   string `query:"type"`
	Source string `query:"source"`
	Min    string `query:"min"`
	Max    string `query:"max"`
	User   string `query:"user"`
	Batch  string `query:"batch"`
	// Last4 and Reference are the search's older, separate filters: an
	// address that holds them still works.
	Last4     string `query:"last4"`
	Reference string `query:"reference"`
	After     string `query:"after"`
	// TZ is the viewer's time zone (set by the page's script), in which the
	// dates are days.
	TZ string `query:"tz"`
}

// filter checks the form and turns it into the ledger's Filter.
func (f *LedgerForm) filter(merchantID uuid.UUID) (Filter, apperr.FieldErrors) {
	errs := apperr.FieldErrors{}
	out := Filter{MerchantID: merchantID, Search: strings.TrimSpace(f.Q), Reference: strings.TrimSpace(f.Reference),
		Batch: strings.TrimSpace(f.Batch), After: f.After}
	f.dates(&out, errs)
	f.choices(&out, errs)
	for _, a := range []struct {
		field, v string
		dst      **int64
	}{{"min", f.Min, &out.MinCents}, {"max", f.Max, &out.MaxCents}} {
		if strings.TrimSpace(a.v) == "" {
			continue
		}
		c, msg := parseCents(a.v)
		if msg != "" {
			errs.Add(a.field, msg)
			continue
		}
		*a.dst = &c
	}
	if l := strings.TrimSpace(f.Last4); l != "" {
		if len(l) != 4 || !digitsOnly(l) {
			errs.Add("last4", "Enter the last four digits of the card or account.")
		}
		out.Last4 = l
	}
	if f.User != "" {
		id, err := uuid.Parse(f.User)
		if err != nil {
			errs.Add("user", "Choose a person from the list.")
		} else {
			out.UserID = &id
		}
	}
	return out, errs
}

// dates reads From and To as days in the viewer's zone: To includes its day.
func (f *LedgerForm) dates(out *Filter, errs apperr.FieldErrors) {
	loc := time.UTC
	if f.TZ != "" {
		if l, err := time.LoadLocation(f.TZ); err == nil {
			loc = l
		}
	}
	day := func(field, v string) time.Time {
		if strings.TrimSpace(v) == "" {
			return time.Time{}
		}
		d, err := time.ParseInLocation("2006-01-02", strings.TrimSpace(v), loc)
		if err != nil {
			errs.Add(field, "Enter a date such as 2026-11-23.")
		}
		return d
	}
	out.From = day("from", f.From)
	if to := day("to", f.To); !to.IsZero() {
		out.To = to.AddDate(0, 0, 1)
	}
}

// choices reads the filters chosen from a list: type, way and status.
func (f *LedgerForm) choices(out *Filter, errs apperr.FieldErrors) {
	switch Kind(f.Type) {
	case "", KindSale, KindAuthorization, KindRefund, KindSaveMethod:
		out.Kind = Kind(f.Type)
	default:
		errs.Add("type", "Choose a type from the list.")
	}
	switch Source(f.Source) {
	case "", SourceCard, SourceACH, SourceTerminal:
		out.Source = Source(f.Source)
	default:
		errs.Add("source", "Choose where it was taken from the list.")
	}
	if f.Status != "" {
		if optionLabel(StatusOptions, f.Status) == "" {
			errs.Add("status", "Choose a status from the list.")
		}
		out.Status = f.Status
	}
}

// ledgerFilterNames are the filters in the order the bar shows them, with
// the names their chips give them.
var ledgerFilterNames = []struct{ param, name string }{
	{"from", "From"}, {"to", "To"}, {"status", "Status"}, {"q", "Search"}, {"type", "Type"}, {"source", "Taken by"},
	{"user", "Person"}, {"min", "Amount from"}, {"max", "Amount to"}, {"batch", "Batch"},
	{"last4", "Last four digits"}, {"reference", "Reference"},
}

// values are the filters' values by their parameter's name.
func (f LedgerForm) values() map[string]string {
	return map[string]string{"from": f.From, "to": f.To, "status": f.Status, "q": f.Q, "type": f.Type, "source": f.Source,
		"user": f.User, "min": f.Min, "max": f.Max, "batch": f.Batch, "last4": f.Last4, "reference": f.Reference}
}

// pairs is the form as name-value pairs for query, without the page cursor;
// without is left out.
func (f LedgerForm) pairs(without ...string) []string {
	values := f.values()
	var out []string
	for _, n := range ledgerFilterNames {
		if len(without) == 0 || without[0] != n.param {
			out = append(out, n.param, values[n.param])
		}
	}
	return append(out, "tz", f.TZ)
}

// Query is the form as a query string, without the page cursor.
func (f LedgerForm) Query() string { return query(f.pairs()...) }

// Active reports whether any filter is set.
func (f LedgerForm) Active() bool {
	for _, v := range f.values() {
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// MoreSet reports whether a filter under "More filters" is set, so the
// fold opens on it.
func (f LedgerForm) MoreSet() bool {
	return f.Type != "" || f.Source != "" || f.User != "" || strings.TrimSpace(f.Min+f.Max+f.Batch) != ""
}

// FilterChip is one filter in force: "Status: Declined", with the address
// of the same list without it.
type FilterChip struct {
	Name, Value, Remove string
}

// chips lists the filters in force, in the bar's order.
func (f LedgerForm) chips(base string, people []Person) []FilterChip {
	values := f.values()
	var out []FilterChip
	for _, n := range ledgerFilterNames {
		v := strings.TrimSpace(values[n.param])
		if v == "" {
			continue
		}
		out = append(out, FilterChip{Name: n.name, Value: f.chipValue(n.param, v, people), Remove: base + query(f.pairs(n.param)...)})
	}
	return out
}

// chipValue words a filter's value as the bar's lists name it.
func (f LedgerForm) chipValue(param, v string, people []Person) string {
	switch param {
	case "status":
		return orTyped(optionLabel(StatusOptions, v), v)
	case "type":
		return orTyped(optionLabel(KindOptions, v), v)
	case "source":
		return orTyped(map[string]string{"card": "Card (keyed or saved)", "ach": "Bank account (ACH)", "terminal": "Card terminal"}[v], v)
	case "user":
		for _, p := range people {
			if p.ID.String() == v {
				return p.Name
			}
		}
	case "min", "max":
		if c, msg := parseCents(v); msg == "" {
			return FormatCents(c)
		}
	case "q":
		return "“" + v + "”"
	}
	return v
}

func optionLabel(options []struct{ Value, Label string }, v string) string {
	for _, o := range options {
		if o.Value == v {
			return o.Label
		}
	}
	return ""
}

func orTyped(label, typed string) string {
	if label == "" {
		return typed
	}
	return label
}
