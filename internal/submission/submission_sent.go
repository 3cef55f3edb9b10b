package submission

import (
	"strconv"
	"strings"

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
// the form's labels; empty values are left out, as they were not sent.
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
			{Label: "Legal name", Value: le.Name},
			{Label: "Entity type", Value: entityTitle(le.Type)},
			{Label: "Tax ID", Value: le.TIN, Masked: true},
			{Label: "Incorporation date", Value: le.IncorporationDate},
			{Label: "Incorporation state", Value: le.IncorporationState},
			{Label: "Years in business", Value: intText(le.YearsInBusiness)},
			{Label: "Address", Value: addressLine(le.Address)},
		})
	}
	if b := d.Business; b != nil {
		addSection("Business", []SentRow{
			{Label: "Trading name (DBA)", Value: b.DBA},
			{Label: "Goods and services", Value: b.GoodsAndServices},
			{Label: "Merchant category code", Value: b.MCC},
			{Label: "Phone", Value: b.Phone},
			{Label: "E-mail", Value: b.Email},
			{Label: "Website", Value: b.WebsiteURL},
			{Label: "Address", Value: addressLine(b.Address)},
			{Label: "Monthly card volume", Value: dollars(b.MonthlyVolume)},
			{Label: "Average ticket", Value: dollars(b.AverageTicket)},
			{Label: "Highest ticket", Value: dollars(b.HighTicket)},
		})
	}
	for i, o := range d.Owners {
		control := ""
		if o.ControlPerson != nil && *o.ControlPerson {
			control = "Yes"
		}
		addSection("Owner "+strconv.Itoa(i+1), []SentRow{
			{Label: "Name", Value: strings.Join(strings.Fields(o.FirstName+" "+o.MiddleName+" "+o.LastName), " ")},
			{Label: "Title", Value: o.Title},
			{Label: "Ownership", Value: percentText(o.PercentOwnership)},
			{Label: "Control person", Value: control},
			{Label: "Date of birth", Value: o.DOB},
			{Label: "SSN", Value: o.SSN, Masked: true},
			{Label: "Home address", Value: addressLine(o.Address)},
			{Label: "Phone", Value: o.Phone},
			{Label: "E-mail", Value: o.Email},
		})
	}
	if bk := d.Banking; bk != nil {
		addSection("Deposit account", []SentRow{
			{Label: "Account holder", Value: bk.AccountHolderName},
			{Label: "Routing number", Value: bk.DepositRouting},
			{Label: "Account number", Value: bk.DepositAccount, Masked: true},
			{Label: "Account type", Value: bk.AccountType},
		})
	} else {
		// Nothing was sent: the rep left the account to the merchant.
		addSection("Deposit account", []SentRow{{Label: "Account", Value: "Not sent: the merchant enters it in the processor's pages"}})
	}
	if c := d.Contact; c != nil {
		addSection("Merchant contact", []SentRow{
			{Label: "Name", Value: c.Name},
			{Label: "E-mail", Value: c.Email},
			{Label: "Phone", Value: c.Phone},
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
