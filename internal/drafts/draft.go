// Package drafts is the pure model of a merchant application: the draft a sales rep fills
// in, the one field registry (fields.go) from which labels, inputs, the checklist's
// phrases, sensitive fields and the order of messages are derived, validation,
// normalisation, the readiness checklist and the binding of a submitted section. It
// holds no database and knows no HTTP.
//
// A Draft keeps every value as the text the rep typed, so a failed validation can show exactly
// what was entered. Its JSON names are the segments of the canonical form field names (see
// fields.go): the field "owners.0.ssn" is Draft.Owners[0].SSN, stored as
// {"owners":[{"ssn":...}]}. Forms, error maps, checklist anchors and JSON all use these names.
//
// Two checks with different purposes:
//   - Draft.Validate runs on every save: empty fields are fine, filled-in fields must be
//     well-formed.
//   - BuildChecklist says what is still missing or wrong before the application can be
//     submitted; it includes Validate's errors.
package drafts

// EntityType is the legal form of the business (upstream legalEntity.type).
type EntityType string

// Entity types a merchant can be.
const (
	EntitySoleProprietor EntityType = "sole_proprietor"
	EntityPartnership    EntityType = "partnership"
	EntityLLC            EntityType = "llc"
	EntityCorporation    EntityType = "corporation"
	EntityNonProfit      EntityType = "non_profit"
	EntityGovernment     EntityType = "government"
)

// EntityTypes lists the entity types in the order a form offers them.
func EntityTypes() []EntityType {
	return []EntityType{
		EntitySoleProprietor, EntityPartnership, EntityLLC,
		EntityCorporation, EntityNonProfit, EntityGovernment,
	}
}

// Title is the entity type as people read it ("Sole proprietor", "LLC").
func (e EntityType) Title() string {
	switch e {
	case EntitySoleProprietor:
		return "Sole proprietor"
	case EntityPartnership:
		return "Partnership"
	case EntityLLC:
		return "LLC"
	case EntityCorporation:
		return "Corporation"
	case EntityNonProfit:
		return "Non-profit"
	case EntityGovernment:
		return "Government"
	}
	return string(e)
}

// Valid reports whether e is one of the known entity types.
func (e EntityType) Valid() bool {
	for _, k := range EntityTypes() {
		if e == k {
			return true
		}
	}
	return false
}

// NeedsIncorporation reports whether the entity is registered with a state and so has an
// incorporation (formation) date and state. Sole proprietors and government bodies are not.
func (e EntityType) NeedsIncorporation() bool {
	switch e {
	case EntityPartnership, EntityLLC, EntityCorporation, EntityNonProfit:
		return true
	}
	return false
}

// HasBeneficialOwners reports whether the 25% beneficial-ownership rule applies. Non-profits
// and government bodies have no owners, only officers (as in FinCEN's customer due diligence
// rule); for them ownership percentages are optional and default to 0.
func (e EntityType) HasBeneficialOwners() bool {
	return e != EntityNonProfit && e != EntityGovernment
}

// AccountType is the kind of deposit account (upstream accountType Checking/Savings).
type AccountType string

// Deposit account types.
const (
	AccountChecking AccountType = "checking"
	AccountSavings  AccountType = "savings"
)

// Draft is the whole editable application as the rep typed it. It is persisted as JSONB.
// The fields SSN, TIN and account number are personal data: the store encrypts them (see
// SensitiveFields) and they must never be logged or put in messages.
type Draft struct {
	Business Business `json:"business"`
	Owners   []Owner  `json:"owners" validate:"dive"`
	// OtherOwnersBelow25 is the rep's confirmation that no person other than the owners listed
	// holds 25% or more. Without it a business whose listed owners hold 75% or less could never
	// be submitted when the rest is widely held (many small shareholders).
	OtherOwnersBelow25 bool    `json:"other_owners_below_25"`
	Bank               Bank    `json:"bank"`
	Contact            Contact `json:"contact"`
	// Notes are internal to the reseller and never sent upstream.
	Notes string `json:"notes"`
}

// Business describes the merchant. Amounts are decimal text ("1234.50"), percentages text
// ("33.33"), dates "YYYY-MM-DD". Comments give the upstream names for the hand-off mapping.
type Business struct {
	// LegalName is upstream legalEntity.name.
	LegalName string `json:"legal_name"`
	// DBA is upstream business.dba; optional, see DBAOrLegalName.
	DBA string `json:"dba"`
	// EntityType is upstream legalEntity.type (and business.type).
	EntityType EntityType `json:"entity_type" validate:"omitempty,oneof=sole_proprietor partnership llc corporation non_profit government"`
	// TIN is upstream legalEntity.tin: an EIN, or a sole proprietor's SSN. Its rules depend
	// on EntityType, so Validate checks it in Go rather than by tag.
	TIN                string `json:"tin"`
	IncorporationDate  string `json:"incorporation_date" validate:"omitempty,iso_date"`
	IncorporationState string `json:"incorporation_state" validate:"omitempty,us_state"`
	// Address is upstream business.address (and legalEntity.address).
	Address Address `json:"address"`
	Phone   string  `json:"phone" validate:"omitempty,phone"`
	Email   string  `json:"email" validate:"omitempty,email"`
	// Website is upstream business.websiteUrl.
	Website string `json:"website" validate:"omitempty,website"`
	// GoodsAndServices is upstream business.goodsAndServices: what the merchant sells.
	GoodsAndServices string `json:"goods_and_services"`
	MCC              string `json:"mcc" validate:"omitempty,mcc"`
	// YearsInBusiness is upstream legalEntity.yearsInBusiness.
	YearsInBusiness string `json:"years_in_business" validate:"omitempty,not_negative,whole_number"`
	MonthlyVolume   string `json:"monthly_volume" validate:"omitempty,not_negative,decimal,max_2dp"`
	AverageTicket   string `json:"average_ticket" validate:"omitempty,not_negative,decimal,max_2dp"`
	HighestTicket   string `json:"highest_ticket" validate:"omitempty,not_negative,decimal,max_2dp"`
	// The card mix: shares of volume taken with the card present, keyed in, and online.
	CardPresentPct string `json:"card_present_pct" validate:"omitempty,not_negative,decimal,max_2dp,max_100"`
	KeyedPct       string `json:"keyed_pct" validate:"omitempty,not_negative,decimal,max_2dp,max_100"`
	EcommercePct   string `json:"ecommerce_pct" validate:"omitempty,not_negative,decimal,max_2dp,max_100"`
}

// DBAOrLegalName is the name the merchant trades under: the DBA, or the legal name when the
// business has no separate trade name. A DBA is therefore never required.
func (b Business) DBAOrLegalName() string {
	if b.DBA != "" {
		return b.DBA
	}
	return b.LegalName
}

// Address is a US street address (upstream address {line1, line2, city, state, postalCode}).
type Address struct {
	Line1      string `json:"line1"`
	Line2      string `json:"line2"`
	City       string `json:"city"`
	State      string `json:"state" validate:"omitempty,us_state"`
	PostalCode string `json:"postal_code" validate:"omitempty,us_zip"`
}

// Owner is an owner or officer of the business (upstream owners[]). ID is stable for the
// owner's life in the draft (a UUID assigned by the caller when the owner is added), so that
// encryption AAD and audit entries survive owners being removed and indexes shifting.
type Owner struct {
	ID         string `json:"id"`
	FirstName  string `json:"first_name"`
	MiddleName string `json:"middle_name"` // optional
	LastName   string `json:"last_name"`
	Title      string `json:"title"`
	// OwnershipPct is upstream percentOwnership.
	OwnershipPct string `json:"ownership_pct" validate:"omitempty,not_negative,decimal,max_2dp,max_100"`
	// DateOfBirth is upstream dob.
	DateOfBirth string `json:"date_of_birth" validate:"omitempty,iso_date"`
	// SSN is the owner's SSN, or their ITIN if they have no SSN.
	SSN     string  `json:"ssn" validate:"omitempty,ssn_format,ssn_or_itin"`
	Address Address `json:"address"`
	Phone   string  `json:"phone" validate:"omitempty,phone"`
	Email   string  `json:"email" validate:"omitempty,email"`
	// IsControlPerson marks the one person who controls the business and signs; exactly
	// one owner per application carries it.
	IsControlPerson bool `json:"is_control_person"`
}

// FullName is the owner's name as printed ("Jane Q Doe"), or "" when none is entered.
func (o Owner) FullName() string {
	name := ""
	for _, part := range []string{o.FirstName, o.MiddleName, o.LastName} {
		if part == "" {
			continue
		}
		if name != "" {
			name += " "
		}
		name += part
	}
	return name
}

// Bank is the deposit account (upstream banking {depositAccount, depositRouting}).
type Bank struct {
	// FromMerchant leaves the deposit account to the merchant, who enters it in the
	// processor's own pages after the hand-off: reps often do not hold the voided check,
	// and then never handle the merchant's account number at all. The bank fields are not
	// required and nothing of them is sent upstream.
	FromMerchant  bool        `json:"from_merchant"`
	HolderName    string      `json:"holder_name"`
	RoutingNumber string      `json:"routing_number" validate:"omitempty,routing_number,aba_checksum"`
	AccountNumber string      `json:"account_number" validate:"omitempty,bank_account"`
	AccountType   AccountType `json:"account_type" validate:"omitempty,oneof=checking savings"`
}

// Contact is the merchant's person who receives the hand-off e-mail (upstream contact).
type Contact struct {
	Name  string `json:"name"`
	Email string `json:"email" validate:"omitempty,email"`
	Phone string `json:"phone" validate:"omitempty,phone"`
}

// MaxOwners bounds the owners of one application; it keeps a crafted form from growing a draft
// without limit and is well above the four 25% owners plus officers a business can have.
const MaxOwners = 10

// Owner returns the owner with the given id and its index, or false.
func (d *Draft) Owner(id string) (*Owner, int, bool) {
	for i := range d.Owners {
		if d.Owners[i].ID == id {
			return &d.Owners[i], i, true
		}
	}
	return nil, -1, false
}

// AddOwner appends an empty owner with the given id (the caller makes a UUID) and returns it.
// It returns false when the draft already holds MaxOwners owners or the id is empty or taken.
// The first owner becomes the control person, since most businesses have just one.
func (d *Draft) AddOwner(id string) (*Owner, bool) {
	if id == "" || len(d.Owners) >= MaxOwners {
		return nil, false
	}
	if _, _, taken := d.Owner(id); taken {
		return nil, false
	}
	d.Owners = append(d.Owners, Owner{ID: id, IsControlPerson: len(d.Owners) == 0})
	return &d.Owners[len(d.Owners)-1], true
}

// RemoveOwner removes the owner with the given id and reports whether it was there. Later
// owners move up one index; their ids stay.
func (d *Draft) RemoveOwner(id string) bool {
	_, i, ok := d.Owner(id)
	if !ok {
		return false
	}
	d.Owners = append(d.Owners[:i], d.Owners[i+1:]...)
	return true
}

// SetControlPerson marks the owner with the given id as the control person and clears the
// mark on all others; an empty or unknown id clears every mark. Forms that offer the choice
// as one radio group (value = owner id) bind through this.
func (d *Draft) SetControlPerson(id string) {
	for i := range d.Owners {
		d.Owners[i].IsControlPerson = id != "" && d.Owners[i].ID == id
	}
}
