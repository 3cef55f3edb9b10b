package submission

import (
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

// sentSections lays out masked upstream data in the order of the form, with
// the labels of the field registry (drafts.FieldLabel), so the page that shows
// what was sent names each value as the form did; empty values are left out,
// as they were not sent.
func sentSections(d *upstream.ApplicationData) []SentSection {
	if d == nil {
		return nil
	}
	var out []SentSection
	addSection := func(title string, rows []SentRow) {
		var kept []SentRow
		for _, r := range rows {
			if r.Value != "" {
				kept = append(kept, r)
			}
		}
		if len(kept) > 0 {
			out = append(out, SentSection{Title: title, Rows: kept})
		}
	}
	if le := d.LegalEntity; le != nil {
		addSection("Legal entity", []SentRow{
			{Label: label("business.legal_name"), Value: le.Name},
			{Label: label("business.entity_type"), Value: entityTitle(le.Type)},
			{Label: label(drafts.FieldBusinessTIN), Value: le.TIN, Masked: true},
			{Label: label("business.incorporation_date"), Value: le.IncorporationDate},
			{Label: label("business.incorporation_state"), Value: le.IncorporationState},
			{Label: label("business.years_in_business"), Value: intText(le.YearsInBusiness)},
			{Label: "Address", Value: addressLine(le.Address)},
		})
	}
	if b := d.Business; b != nil {
		addSection(drafts.SectionTitle(drafts.SectionBusiness), []SentRow{
			{Label: label("business.dba"), Value: b.DBA},
			{Label: label("business.goods_and_services"), Value: b.GoodsAndServices},
			{Label: label("business.mcc"), Value: b.MCC},
			{Label: label("business.phone"), Value: b.Phone},
			{Label: label("business.email"), Value: b.Email},
			{Label: label("business.website"), Value: b.WebsiteURL},
			{Label: "Address", Value: addressLine(b.Address)},
			{Label: label("business.monthly_volume"), Value: dollars(b.MonthlyVolume)},
			{Label: label("business.average_ticket"), Value: dollars(b.AverageTicket)},
			{Label: label("business.highest_ticket"), Value: dollars(b.HighTicket)},
		})
	}
	for i, o := range d.Owners {
		control := ""
		if o.ControlPerson != nil && *o.ControlPerson {
			control = "Yes"
		}
		addSection("Owner "+strconv.Itoa(i+1), []SentRow{
			{Label: "Name", Value: strings.Join(strings.Fields(o.FirstName+" "+o.MiddleName+" "+o.LastName), " ")},
			{Label: label("owners.0.title"), Value: o.Title},
			{Label: label("owners.0.ownership_pct"), Value: percentText(o.PercentOwnership)},
			{Label: label("owners.0.is_control_person"), Value: control},
			{Label: label("owners.0.date_of_birth"), Value: o.DOB},
			{Label: label("owners.0.ssn"), Value: o.SSN, Masked: true},
			{Label: "Home address", Value: addressLine(o.Address)},
			{Label: label("owners.0.phone"), Value: o.Phone},
			{Label: label("owners.0.email"), Value: o.Email},
		})
	}
	if bk := d.Banking; bk != nil {
		addSection(drafts.SectionTitle(drafts.SectionBank), []SentRow{
			{Label: label("bank.holder_name"), Value: bk.AccountHolderName},
			{Label: label("bank.routing_number"), Value: bk.DepositRouting},
			{Label: label("bank.account_number"), Value: bk.DepositAccount, Masked: true},
			{Label: label("bank.account_type"), Value: bk.AccountType},
		})
	} else {
		// Nothing was sent: the rep left the account to the merchant.
		addSection(drafts.SectionTitle(drafts.SectionBank), []SentRow{{Label: "Account", Value: "Not sent: the merchant enters it in the processor's pages"}})
	}
	if c := d.Contact; c != nil {
		addSection(drafts.SectionTitle(drafts.SectionContact), []SentRow{
			{Label: label("contact.name"), Value: c.Name},
			{Label: label("contact.email"), Value: c.Email},
			{Label: label("contact.phone"), Value: c.Phone},
		})
	}
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

func addressLine(a *upstream.Address) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, p := range []string{a.Line1, a.Line2, a.City, strings.TrimSpace(a.State + " " + a.PostalCode)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func intText(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func percentText(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64) + "%"
}

func dollars(s string) string {
	if s == "" {
		return ""
	}
	return "$" + s
}

// label is the registry's label of the draft field a sent value came from.
func label(field string) string { return drafts.FieldLabel(field) }
