package dashboard

import (
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
	"github.com/payportal/portal/internal/validation"
)

// State is where the row's application stands, leading with the outcome
// (the one state table, internal/states).
func (r ListRow) State() states.State { return states.Of(r.Status, r.UpstreamStatus) }

// sortChoices are the dashboard's orders as one select: a leading "-" reverses the order.
var sortChoices = []drafts.Option{
	{Value: SortUpdated, Label: "Recently updated"},
	{Value: "-" + SortUpdated, Label: "Least recently updated"},
	{Value: SortCreated, Label: "Newest"},
	{Value: "-" + SortCreated, Label: "Oldest"},
	{Value: SortName, Label: "Name, A to Z"},
	{Value: "-" + SortName, Label: "Name, Z to A"},
	{Value: SortStatus, Label: "Status"},
}

// maxSearchLength bounds the search text; longer input is cut, not refused.
const maxSearchLength = 100

// ListForm is the dashboard's filter form as submitted, kept as text so the form shows it
// again, with a message for each filter that could not be used.
type ListForm struct {
	Q, Status, Owner, DateField, From, To, Sort string
	Deleted                                     bool
	Errors                                      map[string]string
	// Malformed says a value is not text at all (a NUL byte, invalid UTF-8): the page
	// answers 400, with the message beside the field.
	Malformed bool
}

// BindListForm reads the dashboard's query string. A filter that does not parse is left out
// of the query and reported beside its field; the list still shows.
func BindListForm(values url.Values) (ListForm, ListQuery) {
	f := ListForm{
		Q: strings.TrimSpace(values.Get("q")), Status: values.Get("status"), Owner: values.Get("owner"),
		DateField: values.Get("date"), From: strings.TrimSpace(values.Get("from")), To: strings.TrimSpace(values.Get("to")),
		Sort: values.Get("sort"), Deleted: values.Get("deleted") != "", Errors: map[string]string{},
	}
	q := ListQuery{Deleted: f.Deleted, DateField: DateUpdated, Sort: SortUpdated}
	switch p := validation.CheckText(f.Q, false); {
	case p != validation.TextOK:
		f.Errors["q"] = validation.TextMessage("The search", p)
		f.Malformed = true
	case validation.TooLong(f.Q, maxSearchLength):
		// Longer text is cut, not refused: a pasted paragraph still searches by its start.
		f.Q = string([]rune(f.Q)[:maxSearchLength])
		q.Search = f.Q
	default:
		q.Search = f.Q
	}
	for name, v := range map[string]string{"status": f.Status, "owner": f.Owner, "date": f.DateField, "from": f.From, "to": f.To, "sort": f.Sort} {
		if p := validation.CheckText(v, false); p != validation.TextOK {
			f.Errors[name] = "Choose a value from the list."
			f.Malformed = true
		}
	}
	if f.Status != "" {
		if states.OutcomeLabel(f.Status) == "" {
			f.Errors["status"] = "Choose a status from the list."
		} else {
			q.Outcome = f.Status
		}
	}
	if f.Owner != "" {
		if id, err := uuid.Parse(f.Owner); err == nil {
			q.OwnerID = id
		} else {
			f.Errors["owner"] = "Choose an owner from the list."
		}
	}
	if f.DateField == DateCreated {
		q.DateField = DateCreated
	} else {
		f.DateField = DateUpdated
	}
	q.From = f.date("from", f.From)
	q.To = f.date("to", f.To)
	if !q.From.IsZero() && !q.To.IsZero() && q.To.Before(q.From) {
		f.Errors["to"] = "The end date is before the start date."
		q.To = time.Time{}
	}
	sort, reverse := strings.CutPrefix(f.Sort, "-")
	if IsSort(sort) {
		q.Sort, q.Reverse = sort, reverse
	} else {
		f.Sort = SortUpdated
	}
	q.After, _ = uuid.Parse(values.Get("after"))
	q.Before, _ = uuid.Parse(values.Get("before"))
	return f, q
}

// date parses a filter date, recording a message when it does not parse.
func (f *ListForm) date(name, v string) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, ok := validation.ParseDate(v)
	if !ok {
		f.Errors[name] = "Enter a date written YYYY-MM-DD."
		return time.Time{}
	}
	return t
}

// Values encodes the filters as a query string, without cursors.
func (f ListForm) Values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", f.Q)
	set("status", f.Status)
	set("owner", f.Owner)
	if f.From != "" || f.To != "" {
		set("date", f.DateField)
	}
	set("from", f.From)
	set("to", f.To)
	if f.Sort != SortUpdated {
		set("sort", f.Sort)
	}
	if f.Deleted {
		v.Set("deleted", "1")
	}
	return v
}

// ListView is the data of the dashboard page and of its list fragment.
type ListView struct {
	Form    ListForm
	Page    *ListPage
	IsAdmin bool
	// Users are the owners an admin can filter by.
	Users []models.User
}

// StatusOptions are the status filter's choices: the outcomes of the state
// table.
func (v *ListView) StatusOptions() []drafts.Option {
	opts := []drafts.Option{{Value: "", Label: "Any status"}}
	for _, o := range states.Outcomes() {
		opts = append(opts, drafts.Option{Value: o.Code, Label: o.Label})
	}
	return drafts.WithSelection(opts, v.Form.Status)
}

// OwnerOptions are the owner filter's choices (admins).
func (v *ListView) OwnerOptions() []drafts.Option {
	opts := []drafts.Option{{Value: "", Label: "Anyone"}}
	for _, u := range v.Users {
		label := u.DisplayName()
		if !u.Active {
			label += " (deactivated)"
		}
		opts = append(opts, drafts.Option{Value: u.ID.String(), Label: label})
	}
	return drafts.WithSelection(opts, v.Form.Owner)
}

// SortOptions are the sort select's choices.
func (v *ListView) SortOptions() []drafts.Option {
	return drafts.WithSelection(append([]drafts.Option(nil), sortChoices...), v.Form.Sort)
}

// DateOptions choose which date the range bounds.
func (v *ListView) DateOptions() []drafts.Option {
	return drafts.WithSelection([]drafts.Option{{Value: DateUpdated, Label: "Updated"}, {Value: DateCreated, Label: "Created"}}, v.Form.DateField)
}

// Filtered reports whether any filter narrows the list, to word an empty result.
func (v *ListView) Filtered() bool {
	vals := v.Form.Values()
	vals.Del("sort")
	return len(vals) > 0
}

// NextURL and PrevURL link the neighbouring pages; "" when there is none.
func (v *ListView) NextURL() string { return v.pageURL("after", v.Page.Next) }

// PrevURL links the previous page; "" when there is none.
func (v *ListView) PrevURL() string { return v.pageURL("before", v.Page.Prev) }

func (v *ListView) pageURL(param string, cursor uuid.UUID) string {
	if cursor == uuid.Nil {
		return ""
	}
	vals := v.Form.Values()
	vals.Set(param, cursor.String())
	return "/?" + vals.Encode()
}

// UpstreamStatusText explains the row's state when the processor has said
// something of the application, or "".
func (r ListRow) UpstreamStatusText() string {
	if r.UpstreamStatus == nil || *r.UpstreamStatus == "" {
		return ""
	}
	return r.State().Explanation
}
