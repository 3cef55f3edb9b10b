package accounts

// ApplicationData is the application data sent with start or PATCH. Field
// names are the published ones (upstream-facts.md). Every field is optional
// and omitted when empty, so a PATCH sends only what is set; the upstream
// merges it into what it holds.
//
// Fields marked "our addition" are not in the published body; a real
// processor needs them, and the sandbox accepts them.
type ApplicationData struct {
	Business    *Business    `json:"business,omitempty"`
	LegalEntity *LegalEntity `json:"legalEntity,omitempty"`
	// Owners replaces the whole list when sent.
	Owners  []Owner  `json:"owners,omitempty"`
	Banking *Banking `json:"banking,omitempty"`
	Contact *Contact `json:"contact,omitempty"`
}

// Address is a postal address; State is the two-letter code, PostalCode a
// ZIP or ZIP+4.
type Address struct {
	Line1      string `json:"line1,omitempty"`
	Line2      string `json:"line2,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
}

// Business describes the merchant's trading business.
type Business struct {
	DBA              string   `json:"dba,omitempty"`
	Type             string   `json:"type,omitempty"`
	GoodsAndServices string   `json:"goodsAndServices,omitempty"`
	Phone            string   `json:"phone,omitempty"`
	Email            string   `json:"email,omitempty"`
	WebsiteURL       string   `json:"websiteUrl,omitempty"`
	Address          *Address `json:"address,omitempty"`
	// MCC is the 4-digit merchant category code (our addition).
	MCC string `json:"mcc,omitempty"`
	// MonthlyVolume, AverageTicket and HighTicket are dollar amounts as
	// decimal text, e.g. "12500.00" (our additions).
	MonthlyVolume string `json:"monthlyVolume,omitempty"`
	AverageTicket string `json:"averageTicket,omitempty"`
	HighTicket    string `json:"highTicket,omitempty"`
}

// Legal entity types the sandbox's pages offer. The upstream publishes no
// list; the sandbox accepts any text.
const (
	LegalEntitySoleProprietorship = "soleProprietorship"
	LegalEntityPartnership        = "partnership"
	LegalEntityLLC                = "llc"
	LegalEntityCorporation        = "corporation"
	LegalEntityNonProfit          = "nonProfit"
	LegalEntityGovernment         = "government"
)

// LegalEntity describes the company that signs the merchant agreement.
type LegalEntity struct {
	Type            string   `json:"type,omitempty"`
	Name            string   `json:"name,omitempty"`
	TIN             string   `json:"tin,omitempty"`
	Address         *Address `json:"address,omitempty"`
	YearsInBusiness *int     `json:"yearsInBusiness,omitempty"`
	Foreign         *bool    `json:"foreign,omitempty"`
	// IncorporationDate is YYYY-MM-DD (our addition).
	IncorporationDate string `json:"incorporationDate,omitempty"`
	// IncorporationState is the two-letter state code (our addition).
	IncorporationState string `json:"incorporationState,omitempty"`
}

// Owner is a person who owns or controls the business. DOB is YYYY-MM-DD.
type Owner struct {
	Salutation       string   `json:"salutation,omitempty"`
	FirstName        string   `json:"firstName,omitempty"`
	MiddleName       string   `json:"middleName,omitempty"`
	LastName         string   `json:"lastName,omitempty"`
	Title            string   `json:"title,omitempty"`
	PercentOwnership *float64 `json:"percentOwnership,omitempty"`
	SSN              string   `json:"ssn,omitempty"`
	DOB              string   `json:"dob,omitempty"`
	Address          *Address `json:"address,omitempty"`
	Phone            string   `json:"phone,omitempty"`
	Email            string   `json:"email,omitempty"`
	// ControlPerson marks the person with significant control (our addition).
	ControlPerson *bool `json:"controlPerson,omitempty"`
}

// Bank account types, as the direct payment API spells them.
const (
	AccountTypeChecking = "Checking"
	AccountTypeSavings  = "Savings"
)

// Banking is the account that receives the merchant's deposits.
type Banking struct {
	DepositAccount string `json:"depositAccount,omitempty"`
	DepositRouting string `json:"depositRouting,omitempty"`
	// AccountType is AccountTypeChecking or AccountTypeSavings (our addition).
	AccountType string `json:"accountType,omitempty"`
	// AccountHolderName is the name on the account (our addition).
	AccountHolderName string `json:"accountHolderName,omitempty"`
}

// Contact is the person the processor reaches about the application.
type Contact struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}
