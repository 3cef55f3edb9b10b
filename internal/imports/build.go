package imports

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/fieldcrypt"
)

// candidate is a row built into a draft, as the form would hold it.
type candidate struct {
	Number int
	Draft  drafts.Draft
	// Pricing is the pricing model the row names, if any.
	Pricing *uuid.UUID
	// Provided are the fields the row fills (not empty), in column order.
	Provided []string
	// TIN is the tax id's digits; NameKey the legal name compared without case and runs
	// of spaces. They find duplicates.
	TIN, NameKey string
	Errors       []RowError
}

// nameKey is a legal name as duplicates compare it; the database's index computes the
// same (lower(btrim(regexp_replace(legal_name, '\s+', ' ', 'g')))).
func nameKey(name string) string { return strings.ToLower(strings.Join(strings.Fields(name), " ")) }

// cellsAAD binds a row's sealed cells to its batch and row number.
func cellsAAD(batch uuid.UUID, number int) string {
	return fmt.Sprintf("import:%s:%d", batch, number)
}

func sealCells(ring *fieldcrypt.KeyRing, batch uuid.UUID, number int, cells []string) (string, error) {
	b, err := json.Marshal(cells)
	if err != nil {
		return "", err
	}
	return ring.Encrypt(string(b), cellsAAD(batch, number))
}

func openCells(ring *fieldcrypt.KeyRing, batch uuid.UUID, number int, sealed string) ([]string, error) {
	plain, err := ring.Decrypt(sealed, cellsAAD(batch, number))
	if err != nil {
		return nil, fmt.Errorf("open row %d of import %s: %w", number, batch, err)
	}
	var cells []string
	if err := json.Unmarshal([]byte(plain), &cells); err != nil {
		return nil, fmt.Errorf("decode row %d of import %s: %w", number, batch, err)
	}
	return cells, nil
}

// build turns a row's cells into a draft by the mapping and checks it by the form's own
// rules (drafts.Draft.Validate), plus the import's: a legal name (duplicates are found by
// it), a pricing model that exists, yes/no answers. Each problem names its column.
func build(number int, cells, headers, mapping []string, pricing map[string]uuid.UUID, now time.Time) candidate {
	c := candidate{Number: number}
	columnOf := map[string]string{}
	add := func(field, msg string) {
		c.Errors = append(c.Errors, RowError{Column: columnOf[field], Field: field, Message: msg})
	}
	if len(cells) > len(headers) {
		c.Errors = append(c.Errors, RowError{Message: fmt.Sprintf("This row has %d cells but the header names %d columns.", len(cells), len(headers))})
	}
	var pricingName string
	for i, field := range mapping {
		if field == "" {
			continue
		}
		columnOf[field] = headers[i]
		v := ""
		if i < len(cells) {
			v = strings.TrimSpace(cells[i])
		}
		if v == "" {
			continue
		}
		c.Provided = append(c.Provided, field)
		if field == FieldPricing {
			pricingName = v
			continue
		}
		if err := c.Draft.Set(field, v); err != nil {
			add(field, drafts.FieldLabel(field)+" must be yes or no.")
		}
	}
	if len(c.Draft.Owners) == 0 {
		c.Draft.AddOwner(uuid.NewString())
	}
	if !hasControlPerson(c.Draft) {
		c.Draft.Owners[0].IsControlPerson = true
	}
	c.Draft.EnsureOwnerIDs(uuid.NewString)
	for _, fe := range drafts.Sorted(c.Draft.Validate(now)) {
		add(fe.Field, fe.Message)
	}
	if strings.TrimSpace(c.Draft.Business.LegalName) == "" {
		add("business.legal_name", "Legal name is needed to import a row: existing merchants are found by it.")
	}
	if pricingName != "" {
		id, ok := pricing[strings.ToLower(pricingName)]
		if !ok {
			add(FieldPricing, "There is no pricing model of that name that reps may choose; leave it empty or use one from Admin → Pricing.")
		} else {
			c.Pricing = &id
		}
	}
	c.TIN = applications.NormalizeTIN(c.Draft.TaxID())
	c.NameKey = nameKey(c.Draft.Business.LegalName)
	return c
}

// keyFields are the fields that find a row's duplicates: its tax id (the TIN, or a sole
// proprietor's SSN) and its legal name.
var keyFields = map[string]bool{
	"business.legal_name": true, "business.tin": true, "business.entity_type": true, "owners.0.ssn": true,
}

// keys reads only what finds a row's duplicates, without the checks: enough for the
// import to look for them again before it builds the rows it creates or updates.
func keys(number int, cells, mapping []string) candidate {
	c := candidate{Number: number}
	for i, field := range mapping {
		if keyFields[field] && i < len(cells) {
			_ = c.Draft.Set(field, strings.TrimSpace(cells[i])) // key fields are text fields
		}
	}
	c.TIN = applications.NormalizeTIN(c.Draft.TaxID())
	c.NameKey = nameKey(c.Draft.Business.LegalName)
	return c
}

func hasControlPerson(d drafts.Draft) bool {
	for _, o := range d.Owners {
		if o.IsControlPerson {
			return true
		}
	}
	return false
}

// sameFile finds rows that describe the same merchant as an earlier row of the file,
// by the rule of duplicates (sameMerchant).
type sameFile struct {
	byTIN  map[string]int
	byName map[string][]seenRow
}

type seenRow struct {
	number int
	tin    string
}

func newSameFile() *sameFile {
	return &sameFile{byTIN: map[string]int{}, byName: map[string][]seenRow{}}
}

// earlier returns the number of an earlier row of the same merchant, or 0, and
// remembers this one.
func (f *sameFile) earlier(c candidate) int {
	found := 0
	if c.TIN != "" {
		found = f.byTIN[c.TIN]
	}
	if found == 0 && c.NameKey != "" {
		for _, s := range f.byName[c.NameKey] {
			if c.TIN == "" || s.tin == "" {
				found = s.number
				break
			}
		}
	}
	if found == 0 {
		if c.TIN != "" {
			f.byTIN[c.TIN] = c.Number
		}
		if c.NameKey != "" {
			f.byName[c.NameKey] = append(f.byName[c.NameKey], seenRow{c.Number, c.TIN})
		}
	}
	return found
}
