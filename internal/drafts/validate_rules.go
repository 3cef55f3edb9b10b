package drafts

import (
	"fmt"
	"strconv"
	"time"

	"github.com/payportal/portal/internal/validation"
)

// checkCrossField applies the rules that involve more than one field, the entity type or the
// date. d is already trimmed; errs already holds the struct-tag errors, and a field keeps its
// first message.
func (d *Draft) checkCrossField(today time.Time, errs FieldErrors) {
	d.checkTIN(errs)
	if t, ok := validation.ParseDate(d.Business.IncorporationDate); ok {
		switch {
		case t.After(today):
			errs.Add("business.incorporation_date", msgIncorporationFut)
		case t.Year() < EarliestIncorporationYear:
			errs.Add("business.incorporation_date", msgIncorporationOld)
		}
	}
	d.checkOwners(today, errs)
	d.checkCardMix(errs)
	avg, okAvg := validation.Hundredths(d.Business.AverageTicket)
	high, okHigh := validation.Hundredths(d.Business.HighestTicket)
	if okAvg && okHigh && high < avg {
		errs.Add("business.highest_ticket", msgHighestBelowAvg)
	}
}

// checkTIN accepts an EIN from every entity and an SSN or ITIN from a sole proprietor. Until the
// entity type is chosen an SSN is accepted too, rather than failing a rep who fills the form
// out of order; the checklist revalidates once the type is known.
func (d *Draft) checkTIN(errs FieldErrors) {
	tin := d.Business.TIN
	if tin == "" || validation.IsEIN(tin) {
		return
	}
	ssnAllowed := d.Business.EntityType == EntitySoleProprietor || d.Business.EntityType == ""
	msg := ""
	switch {
	case ssnAllowed && validation.IsSSNOrITIN(tin):
		return
	case ssnAllowed && validation.IsEINFormat(tin) && validation.IsSSNFormat(tin):
		msg = msgTINNeither // nine plain digits, neither an issued EIN prefix nor an issuable SSN
	case validation.IsEINFormat(tin):
		msg = msgTINPrefix
	case ssnAllowed && validation.IsSSNFormat(tin):
		msg = msgSSNNotIssued
	case validation.IsSSNFormat(tin):
		msg = msgTINNotSSN
	case ssnAllowed:
		msg = msgTINFormatSole
	default:
		msg = msgTINFormat
	}
	errs.Add(FieldBusinessTIN, msg)
}

// checkOwners checks dates of birth, the ownership total and the control person.
func (d *Draft) checkOwners(today time.Time, errs FieldErrors) {
	if len(d.Owners) > MaxOwners {
		errs.Add(FieldOwners, fmt.Sprintf(msgTooManyOwners, MaxOwners))
	}
	var total int64
	controls := 0
	for i, o := range d.Owners {
		if dob, ok := validation.ParseDate(o.DateOfBirth); ok {
			field := OwnerField(i, "date_of_birth")
			switch age := yearsBetween(dob, today); {
			case dob.After(today):
				errs.Add(field, msgBirthFuture)
			case dob.AddDate(MaxOwnerAge, 0, 0).Before(today):
				errs.Add(field, msgBirthOld)
			case age < MinOwnerAge:
				errs.Add(field, fmt.Sprintf(msgUnderage, age))
			}
		}
		if pct, ok := percent(o.OwnershipPct); ok {
			total += pct
		}
		if o.IsControlPerson {
			controls++
		}
	}
	if total > 100_00 {
		errs.Add(FieldOwners, fmt.Sprintf(msgOwnershipTotal, formatHundredths(total)))
	}
	if controls > 1 {
		for i, o := range d.Owners {
			if o.IsControlPerson {
				errs.Add(OwnerField(i, "is_control_person"), fmt.Sprintf(msgControlPersons, controls))
			}
		}
	}
}

// checkCardMix requires the card-mix shares to add up to 100% once all three are given, and
// never to exceed 100%.
func (d *Draft) checkCardMix(errs FieldErrors) {
	b := d.Business
	var total int64
	given := 0
	for _, s := range []string{b.CardPresentPct, b.KeyedPct, b.EcommercePct} {
		if pct, ok := percent(s); ok {
			total += pct
			given++
		}
	}
	switch {
	case given == 3 && total != 100_00:
		errs.Add(FieldCardMix, fmt.Sprintf(msgCardMixExact, formatHundredths(total)))
	case total > 100_00:
		errs.Add(FieldCardMix, fmt.Sprintf(msgCardMixOver, formatHundredths(total)))
	}
}

// percent parses a well-formed percentage (0–100, two decimals) into hundredths; anything else,
// including an empty field, reports false and is left to the format rules.
func percent(s string) (int64, bool) {
	n, ok := validation.Hundredths(s)
	return n, ok && n <= 100_00
}

// formatHundredths writes 12000 as "120", 9050 as "90.5" and 3333 as "33.33".
func formatHundredths(n int64) string {
	s := strconv.FormatInt(n/100, 10)
	switch frac := n % 100; {
	case frac == 0:
		return s
	case frac%10 == 0:
		return s + "." + strconv.FormatInt(frac/10, 10)
	default:
		return fmt.Sprintf("%s.%02d", s, frac)
	}
}

// yearsBetween counts whole years from birth to today. Someone born on 29 February has a
// birthday on 1 March in common years (time.AddDate normalises 29 February that way).
func yearsBetween(birth, today time.Time) int {
	n := today.Year() - birth.Year()
	if birth.AddDate(n, 0, 0).After(today) {
		n--
	}
	return n
}
