package accounts

// The types below mirror the published names of the application data (see
// upstream-facts.md). They hold no values: the sandbox stores application
// data as decoded JSON and uses these types, through reflection, as the
// schema that names the allowed fields, their JSON types, the labels shown on
// the merchant pages and which details the merchant must supply.
//
// Tags:
//   - label: the words the merchant pages show for the field.
//   - input: the HTML input type on the merchant pages (text when absent).
//   - options: the choices of a select input, separated by "|", each
//     "value=label" (the label is what the merchant reads).
//   - display: how the pages write a stored value: phone, amount, date,
//     percent, years, entityType (a legal entity type's label, any other
//     value as it is; plain text when absent).
//   - hint: a line of help under the input.
//   - required: "true" when the merchant must supply the detail before
//     accepting; in owners only the first owner's fields are required.
//   - secret: "true" when the pages show only the last four characters.
//
// Fields marked "addition" are not in the published body; a real processor
// needs them, so the sandbox accepts them as the portal's client sends them.

// address is a postal address.
type address struct {
	Line1      string `json:"line1" label:"Address line 1" required:"true"`
	Line2      string `json:"line2" label:"Address line 2"`
	City       string `json:"city" label:"City" required:"true"`
	State      string `json:"state" label:"State" hint:"Two-letter code, for example TX" required:"true"`
	PostalCode string `json:"postalCode" label:"ZIP code" hint:"5 digits or ZIP+4" required:"true"`
}

// business describes the merchant's trading business.
type business struct {
	DBA              string   `json:"dba" label:"Doing business as" required:"true"`
	Type             string   `json:"type" label:"Business type" display:"entityType"`
	GoodsAndServices string   `json:"goodsAndServices" label:"Goods and services sold" required:"true"`
	Phone            string   `json:"phone" label:"Business phone" input:"tel" display:"phone" required:"true"`
	Email            string   `json:"email" label:"Business email" input:"email" required:"true"`
	WebsiteURL       string   `json:"websiteUrl" label:"Website" input:"url"`
	Address          *address `json:"address" label:"Business address" required:"true"`
	MCC              string   `json:"mcc" label:"Merchant category code"`                         // addition
	MonthlyVolume    string   `json:"monthlyVolume" label:"Monthly card volume" display:"amount"` // addition
	AverageTicket    string   `json:"averageTicket" label:"Average ticket" display:"amount"`      // addition
	HighTicket       string   `json:"highTicket" label:"Highest ticket" display:"amount"`         // addition
}

// legalEntity describes the company that signs the merchant agreement.
type legalEntity struct {
	Type               string   `json:"type" label:"Legal entity type" input:"select" options:"soleProprietorship=Sole proprietorship|partnership=Partnership|llc=Limited liability company (LLC)|corporation=Corporation|nonProfit=Non-profit organization|government=Government body" required:"true"`
	Name               string   `json:"name" label:"Legal name" required:"true"`
	TIN                string   `json:"tin" label:"Tax id (TIN)" hint:"9 digits" secret:"true" required:"true"`
	Address            *address `json:"address" label:"Legal address"`
	YearsInBusiness    *int     `json:"yearsInBusiness" label:"Years in business" input:"number" display:"years"`
	Foreign            *bool    `json:"foreign" label:"Foreign entity" input:"select" options:"true=Yes|false=No"`
	IncorporationDate  string   `json:"incorporationDate" label:"Incorporation date" input:"date" display:"date"` // addition
	IncorporationState string   `json:"incorporationState" label:"State of incorporation"`                        // addition
}

// owner is a person who owns or controls the business.
type owner struct {
	Salutation       string   `json:"salutation" label:"Salutation"`
	FirstName        string   `json:"firstName" label:"First name" required:"true"`
	MiddleName       string   `json:"middleName" label:"Middle name"`
	LastName         string   `json:"lastName" label:"Last name" required:"true"`
	Title            string   `json:"title" label:"Title"`
	PercentOwnership *float64 `json:"percentOwnership" label:"Ownership" input:"number" hint:"Percent of the business, 0 to 100" display:"percent" required:"true"`
	SSN              string   `json:"ssn" label:"Social security number" hint:"9 digits" secret:"true" required:"true"`
	DOB              string   `json:"dob" label:"Date of birth" input:"date" display:"date" required:"true"`
	Address          *address `json:"address" label:"Home address"`
	Phone            string   `json:"phone" label:"Phone" input:"tel" display:"phone"`
	Email            string   `json:"email" label:"Email" input:"email"`
	ControlPerson    *bool    `json:"controlPerson" label:"Control person" input:"select" options:"true=Yes|false=No"` // addition
}

// banking is the account that receives the merchant's deposits.
type banking struct {
	DepositAccount    string `json:"depositAccount" label:"Bank account number" hint:"3 to 17 digits" secret:"true" required:"true"`
	DepositRouting    string `json:"depositRouting" label:"Routing number" hint:"9 digits; the test routing number 011401533 is accepted" required:"true"`
	AccountType       string `json:"accountType" label:"Account type" input:"select" options:"Checking=Checking|Savings=Savings"` // addition
	AccountHolderName string `json:"accountHolderName" label:"Account holder name"`                                               // addition
}

// contact is the person the processor reaches about the application.
type contact struct {
	Name  string `json:"name" label:"Contact name"`
	Email string `json:"email" label:"Contact email" input:"email"`
	Phone string `json:"phone" label:"Contact phone" input:"tel" display:"phone"`
}

// applicationData is the body of PATCH and the optional details of start.
type applicationData struct {
	Business    *business    `json:"business" label:"Business"`
	LegalEntity *legalEntity `json:"legalEntity" label:"Legal entity"`
	Owners      []owner      `json:"owners" label:"Owner"`
	Banking     *banking     `json:"banking" label:"Bank account"`
	Contact     *contact     `json:"contact" label:"Contact"`
}

// startBody is the body of POST /application/start: the two identifiers
// beside the optional details, which sit at the top level.
type startBody struct {
	ExternalApplicationID string `json:"externalApplicationId"`
	PricingCode           string `json:"pricingCode"`
	applicationData
}

// fileBody is the body of the file metadata POST.
type fileBody struct {
	FileType      string `json:"fileType"`
	Name          string `json:"name"`
	ContentLength string `json:"contentLength"`
	ContentType   string `json:"contentType"`
}

// authBody is the body of POST /auth.
type authBody struct {
	APIKey string `json:"apiKey"`
	Secret string `json:"secret"`
}

// dataSections are the top-level keys of application data, in page order.
var dataSections = []string{"business", "legalEntity", "owners", "banking", "contact"}
