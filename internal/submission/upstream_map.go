package submission

import (
	"strconv"
	"strings"

	"github.com/payportal/portal/internal/drafts"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
	"github.com/payportal/portal/internal/validation"
)

// The mapping of a draft to the upstream's application data (the PATCH body).
// Field names are those of the published body (upstream-facts.md); the fields
// the upstream client marks "our addition" carry what a processor needs beyond
// it. The rules, where the draft and the upstream differ:
//
//   - Entity types: sole_proprietor → "soleProprietorship", partnership →
//     "partnership", llc → "llc", corporation → "corporation", non_profit →
//     "nonProfit", government → "government" (the values the upstream's pages
//     offer). The same value goes to legalEntity.type and business.type, since
//     the draft has one legal form and business.type has no published list.
//   - business.dba is the DBA, or the legal name when there is none, because
//     the upstream requires a trading name.
//   - legalEntity.tin is Draft.TaxID: the TIN, or a sole proprietor's SSN.
//   - legalEntity.address is the business address (the draft keeps one).
//   - legalEntity.foreign is false: the portal onboards US businesses only
//     (US states, ZIP codes, EIN or SSN are required by validation).
//   - Amounts are dollars with two decimals ("12500.00"); percentages numbers
//     (33.33); yearsInBusiness a whole number; a blank ownership percentage of
//     a non-profit's or government body's officer is 0.
//   - US phone numbers are sent as their 10 digits; international ones as typed.
//   - A website typed without a scheme gets "https://".
//   - Account type checking/savings → "Checking"/"Savings" (the direct payment
//     API's spelling).
//   - Not sent: the card mix (no published field), the internal notes, the
//     owners' ids and the 25% confirmation (portal-side checks only).
//
// Empty values are left out, so a PATCH never blanks what the merchant may
// have filled in on the upstream's pages.

// entityTypeValues maps our entity types to the upstream's legalEntity.type.
var entityTypeValues = map[drafts.EntityType]string{
	drafts.EntitySoleProprietor: upstream.LegalEntitySoleProprietorship,
	drafts.EntityPartnership:    upstream.LegalEntityPartnership,
	drafts.EntityLLC:            upstream.LegalEntityLLC,
	drafts.EntityCorporation:    upstream.LegalEntityCorporation,
	drafts.EntityNonProfit:      upstream.LegalEntityNonProfit,
	drafts.EntityGovernment:     upstream.LegalEntityGovernment,
}

// UpstreamEntityType returns the upstream's legalEntity.type for e, or "" for
// an unknown type (which validation never lets through).
func UpstreamEntityType(e drafts.EntityType) string { return entityTypeValues[e] }

// UpstreamData maps a decrypted draft to the data sent upstream. It holds
// personal data in the clear: never store or log it as is (see
// MaskUpstreamData and the sealed snapshot).
func UpstreamData(d drafts.Draft) upstream.ApplicationData {
	b := d.Business
	addr := upstreamAddress(b.Address)
	out := upstream.ApplicationData{
		Business: &upstream.Business{
			DBA:              b.DBAOrLegalName(),
			Type:             UpstreamEntityType(b.EntityType),
			GoodsAndServices: b.GoodsAndServices,
			Phone:            upstreamPhone(b.Phone),
			Email:            b.Email,
			WebsiteURL:       upstreamWebsite(b.Website),
			Address:          addr,
			MCC:              b.MCC,
			MonthlyVolume:    upstreamAmount(b.MonthlyVolume),
			AverageTicket:    upstreamAmount(b.AverageTicket),
			HighTicket:       upstreamAmount(b.HighestTicket),
		},
		LegalEntity: &upstream.LegalEntity{
			Type:               UpstreamEntityType(b.EntityType),
			Name:               b.LegalName,
			TIN:                d.TaxID(),
			Address:            addr,
			YearsInBusiness:    upstreamWhole(b.YearsInBusiness),
			Foreign:            new(false),
			IncorporationDate:  b.IncorporationDate,
			IncorporationState: b.IncorporationState,
		},
	}
	// Left to the merchant: nothing of the account is sent, and the processor's
	// pages ask the merchant for it after the hand-off.
	if !d.Bank.FromMerchant {
		out.Banking = &upstream.Banking{
			DepositAccount:    d.Bank.AccountNumber,
			DepositRouting:    d.Bank.RoutingNumber,
			AccountType:       upstreamAccountType(d.Bank.AccountType),
			AccountHolderName: d.Bank.HolderName,
		}
	}
	officersOnly := !b.EntityType.HasBeneficialOwners()
	for _, o := range d.Owners {
		out.Owners = append(out.Owners, upstream.Owner{
			FirstName:        o.FirstName,
			MiddleName:       o.MiddleName,
			LastName:         o.LastName,
			Title:            o.Title,
			PercentOwnership: upstreamPercent(o.OwnershipPct, officersOnly),
			SSN:              o.SSN,
			DOB:              o.DateOfBirth,
			Address:          upstreamAddress(o.Address),
			Phone:            upstreamPhone(o.Phone),
			Email:            o.Email,
			ControlPerson:    new(o.IsControlPerson),
		})
	}
	if c := d.Contact; c.Name != "" || c.Email != "" || c.Phone != "" {
		out.Contact = &upstream.Contact{Name: c.Name, Email: c.Email, Phone: upstreamPhone(c.Phone)}
	}
	return out
}

func upstreamAddress(a drafts.Address) *upstream.Address {
	if a == (drafts.Address{}) {
		return nil
	}
	return &upstream.Address{Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: a.PostalCode}
}

// upstreamAmount writes a dollar amount with two decimals; a value that does
// not parse (validation keeps those from being submitted) goes as typed.
func upstreamAmount(s string) string {
	if s == "" {
		return ""
	}
	h, ok := validation.Hundredths(s)
	if !ok {
		return s
	}
	return strconv.FormatInt(h/100, 10) + "." + twoDigits(h%100)
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// upstreamPercent parses a percentage; blank is 0 for officers of bodies
// without owners and absent otherwise.
func upstreamPercent(s string, blankIsZero bool) *float64 {
	if s == "" {
		if blankIsZero {
			return new(0.0)
		}
		return nil
	}
	h, ok := validation.Hundredths(s)
	if !ok {
		return nil
	}
	return new(float64(h) / 100)
}

func upstreamWhole(s string) *int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return nil
	}
	return &n
}

// upstreamPhone sends a US number as its 10 digits, which every processor
// reads; an international number goes as typed.
func upstreamPhone(s string) string {
	if s == "" || strings.HasPrefix(s, "+") && !strings.HasPrefix(s, "+1") {
		return s
	}
	var digits []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) == 11 && digits[0] == '1' {
		digits = digits[1:]
	}
	if len(digits) != 10 {
		return s
	}
	return string(digits)
}

// upstreamWebsite adds the scheme people leave out when they type an address.
func upstreamWebsite(s string) string {
	if s == "" {
		return ""
	}
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return s
	}
	return "https://" + s
}

func upstreamAccountType(t drafts.AccountType) string {
	switch t {
	case drafts.AccountChecking:
		return upstream.AccountTypeChecking
	case drafts.AccountSavings:
		return upstream.AccountTypeSavings
	}
	return ""
}
