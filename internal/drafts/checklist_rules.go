package drafts

import "fmt"

// Checklist messages of the rules that are more than one empty field.
const (
	msgTINMissingSole     = "enter the TIN: the business's EIN, or leave it empty and enter the owner's SSN, which a sole proprietor may use instead"
	msgCardMixMissing     = "enter the card mix: the card-present, keyed and e-commerce shares of volume, adding up to 100%"
	msgCardMixIncomplete  = "the card mix adds up to %s%% so far; the shares must add up to 100%% (a blank share counts as 0)"
	msgNoOwner            = "add at least one owner"
	msgNoOwnerSole        = "add the owner (the sole proprietor)"
	msgNoOfficer          = "add at least one officer: the person who controls the organisation and signs"
	msgNoControlPerson    = "mark one owner as the control person, who signs the application"
	msgSoleOneOwner       = "a sole proprietorship has one owner; remove the others or change the entity type"
	msgSoleOwns100        = "a sole proprietor owns 100% of the business; set ownership to 100"
	msgBeneficialOwnersFm = "listed owners hold %s%% in total; list every person who owns 25%% or more, or confirm that nobody else does"
)

// requireBusiness adds the business section's rules beyond the registry's required
// fields: the TIN (a sole proprietor may give the owner's SSN instead) and the card mix.
func (d *Draft) requireBusiness(list *checklistBuilder) {
	b := d.Business
	if b.TIN == "" {
		switch {
		case b.EntityType != EntitySoleProprietor:
			list.missing(FieldBusinessTIN)
		case len(d.Owners) == 0 || d.Owners[0].SSN == "":
			list.phrase(FieldBusinessTIN, msgTINMissingSole)
		}
	}

	var total int64
	given, valid := 0, 0
	for _, s := range []string{b.CardPresentPct, b.KeyedPct, b.EcommercePct} {
		if s == "" {
			continue
		}
		given++
		if pct, ok := percent(s); ok {
			total += pct
			valid++
		}
	}
	switch {
	case given == 0:
		list.phrase(FieldCardMix, msgCardMixMissing)
	case given < 3 && valid == given && total < 100_00:
		// All three given, or a share over 100%, is Validate's to report.
		list.phrase(FieldCardMix, fmt.Sprintf(msgCardMixIncomplete, formatHundredths(total)))
	}
}

// requireOwners adds the owners section's rules: at least one owner, one control person,
// a sole proprietor's 100% and the beneficial-ownership rule.
func (d *Draft) requireOwners(list *checklistBuilder) {
	entity := d.Business.EntityType
	if len(d.Owners) == 0 {
		switch {
		case entity == EntitySoleProprietor:
			list.phrase(FieldOwners, msgNoOwnerSole)
		case !entity.HasBeneficialOwners():
			list.phrase(FieldOwners, msgNoOfficer)
		default:
			list.phrase(FieldOwners, msgNoOwner)
		}
		return
	}

	// Each owner's required fields come from the registry (requireRegistered); officers of
	// non-profits and government bodies own nothing, so their ownership is not required.
	var total int64
	controls := 0
	for _, o := range d.Owners {
		if pct, ok := percent(o.OwnershipPct); ok {
			total += pct
		}
		if o.IsControlPerson {
			controls++
		}
	}
	if controls == 0 {
		list.phrase(FieldOwners, msgNoControlPerson)
	}

	switch {
	case entity == EntitySoleProprietor:
		if len(d.Owners) > 1 {
			list.phrase(FieldOwners, msgSoleOneOwner)
		}
		field := OwnerField(0, "ownership_pct")
		if pct, ok := percent(d.Owners[0].OwnershipPct); ok && pct != 100_00 {
			list.phrase(field, msgSoleOwns100)
		}
	case entity.HasBeneficialOwners():
		if 100_00-total >= 25_00 && !d.OtherOwnersBelow25 {
			list.phrase(FieldOwners, fmt.Sprintf(msgBeneficialOwnersFm, formatHundredths(total)))
		}
	}
}
