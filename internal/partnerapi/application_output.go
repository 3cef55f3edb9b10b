package partnerapi

import (
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
)

// applicationBody is an application as the API shows it: the draft's fields by their
// JSON names, write-only numbers (SSN, TIN, account number) as their last four digits,
// and where it stands.
func applicationBody(rec *applications.Record) map[string]any {
	a := rec.App
	out := applicationSummary(a)
	out["version"] = a.Version
	out["pricingModelId"] = a.PricingModelID
	out["submittedAt"] = tsp(a.SubmittedAt)
	out["linkedAt"] = tsp(a.LinkedAt)
	out["openedAt"] = tsp(a.OpenedAt)
	d := &rec.Draft
	owners := make([]any, len(d.Owners))
	for i, o := range d.Owners {
		owners[i] = map[string]any{jsonOwnerID: o.ID}
	}
	for _, f := range applicationFields() {
		if !f.Owner {
			put(out, f, d, f.Canonical)
			continue
		}
		for i := range d.Owners {
			put(owners[i].(map[string]any), f, d, drafts.OwnerField(i, f.Canonical))
		}
	}
	out[jsonOwners] = owners
	return out
}

// applicationSummary is what a list shows of an application, and where it stands.
func applicationSummary(a *models.Application) map[string]any {
	st := applications.State(a)
	return map[string]any{
		"id": a.ID, "ownerId": a.OwnerID,
		"state": st.Outcome, "stateLabel": st.Label, "status": string(a.Status), "processorStatus": a.UpstreamStatus,
		"legalName": a.LegalName, "dba": a.DBA,
		"createdAt": ts(a.CreatedAt), "updatedAt": ts(a.UpdatedAt),
	}
}

// put sets the value of the draft's field name at f's path in obj.
func put(obj map[string]any, f field, d *drafts.Draft, name string) {
	for _, seg := range f.Path[:len(f.Path)-1] {
		next, _ := obj[seg].(map[string]any)
		if next == nil {
			next = map[string]any{}
			obj[seg] = next
		}
		obj = next
	}
	key := f.Path[len(f.Path)-1]
	v, _ := d.Get(name) // every name comes from the registry
	switch {
	case f.Checkbox:
		obj[key] = v == "true"
	case f.Sensitive:
		obj[key+last4Suffix] = lastFour(v)
	default:
		obj[key] = v
	}
}

// lastFour is the last four digits of a personal number, as the pages' mask shows
// them; nil when nothing is entered or the number is too short to show any.
func lastFour(v string) *string {
	var digits []byte
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) < 5 {
		return nil
	}
	s := string(digits[len(digits)-4:])
	return &s
}
