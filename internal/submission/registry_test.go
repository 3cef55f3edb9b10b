package submission

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"
)

// The upstream mapping and the field registry agree: every field the registry says is sent
// arrives at that place of the upstream's data, and everything in that data comes from a
// registered field or is one of the values the mapping derives.
func TestUpstreamDataFollowsTheRegistry(t *testing.T) {
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners[0].MiddleName = "Q"
	d.Owners[0].Address.Line2 = "Flat 2"
	d.Owners = append(d.Owners, draftstest.SecondOwner())
	d.Owners[0].OwnershipPct = "60"
	b, err := json.Marshal(UpstreamData(d))
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	sent := map[string]bool{}
	for _, name := range d.FieldNames() {
		path := drafts.SentAs(name)
		if path == "" {
			continue
		}
		sent[path] = true
		if v, err := d.Get(name); err != nil || v == "" || v == "false" {
			continue // an empty value is left out of the upstream's data
		}
		if _, ok := leaves(data)[path]; !ok {
			t.Errorf("%s is registered as sent as %s, which the upstream data lacks", name, path)
		}
	}
	// Values the mapping derives rather than copies from one field.
	derived := map[string]bool{
		"business.type": true, "legalEntity.foreign": true,
		"legalEntity.address.line1": true, "legalEntity.address.line2": true, "legalEntity.address.city": true,
		"legalEntity.address.state": true, "legalEntity.address.postalCode": true,
	}
	var unexplained []string
	for path := range leaves(data) {
		if !sent[path] && !derived[path] {
			unexplained = append(unexplained, path)
		}
	}
	sort.Strings(unexplained)
	if len(unexplained) > 0 {
		t.Errorf("sent but in no registry entry: %v", unexplained)
	}
}

// What was sent is laid out from the registry: the form's sections, labels and order, masked
// personal numbers, and values written for people.
func TestSentViewFollowsTheRegistry(t *testing.T) {
	data := applications.MaskUpstreamData(UpstreamData(draftstest.Complete(drafts.EntityLLC)))
	got := map[string]SentRow{}
	var titles []string
	for _, s := range sentSections(&data) {
		titles = append(titles, s.Title)
		for _, r := range s.Rows {
			got[s.Title+"/"+r.Label] = r
		}
	}
	if want := []string{"Business", "Owner 1", "Deposit account", "Merchant contact"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	for key, want := range map[string]SentRow{
		"Business/Legal name":             {Label: "Legal name", Value: "Blue Fern Coffee LLC"},
		"Business/Entity type":            {Label: "Entity type", Value: "LLC"},
		"Business/TIN":                    {Label: "TIN", Value: "•••• 6789", Masked: true},
		"Business/Monthly card volume":    {Label: "Monthly card volume", Value: "$45,000.00"},
		"Business/Business phone":         {Label: "Business phone", Value: "(415) 555-0100"},
		"Owner 1/Phone":                   {Label: "Phone", Value: "(510) 555-0199"},
		"Business/Years in business":      {Label: "Years in business", Value: "6"},
		"Owner 1/Ownership":               {Label: "Ownership", Value: "100%"},
		"Owner 1/Control person":          {Label: "Control person", Value: "Yes"},
		"Owner 1/SSN":                     {Label: "SSN", Value: "•••• 6789", Masked: true},
		"Deposit account/Account number":  {Label: "Account number", Value: "•••• 6789", Masked: true},
		"Merchant contact/Contact e-mail": {Label: "Contact e-mail", Value: "jane@bluefern.example"},
	} {
		if got[key] != want {
			t.Errorf("%s = %+v, want %+v", key, got[key], want)
		}
	}
	if _, ok := got["Business/Notes"]; ok {
		t.Error("internal notes shown as sent")
	}
}
