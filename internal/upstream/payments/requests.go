package payments

// Account is one merchant account of the direct payment API: its account
// id ({oid} in every path) and its bearer token (a JWT), both issued by the
// operator. Every call names the account it acts for.
type Account struct {
	OID   string
	Token string
}

// String shows the account id only.
func (a Account) String() string { return "account " + a.OID }

// Ref is what every write carries.
type Ref struct {
	// ExternalTransactionID is the caller's id of this transaction, a v4
	// UUID. Read-back finds the transaction by it, so the client can always
	// learn what became of a request whose answer was lost.
	ExternalTransactionID string
	// IdempotencyKey is sent as the idempotency-key header, a v4 UUID.
	// Empty uses ExternalTransactionID, so repeating a request after a
	// crash sends the same key without storing one.
	IdempotencyKey string
	// CashierID names who took the payment (optional).
	CashierID string
	// TransactionReference is the caller's invoice or reference text, at
	// least 3 characters (optional; not sent on void).
	TransactionReference string
}

// Billing is the card holder's billing data, used for AVS (all optional).
type Billing struct {
	Name       string
	Address    string
	PostalCode string
}

// Level2 is level 2 (commercial card) data. PurchaseID and
// PurchaseOrderNumber are required when it is sent.
type Level2 struct {
	IsTaxExempt           bool   `json:"isTaxExempt,omitempty"`
	PurchaseID            string `json:"purchaseId"`
	PurchaseOrderNumber   string `json:"purchaseOrderNumber"`
	CustomerTaxID         string `json:"customerTaxId,omitempty"`
	DestinationPostalCode string `json:"destinationPostalCode,omitempty"`
	ProductDescription    string `json:"productDescription,omitempty"`
}

// Card is keyed card data.
type Card struct {
	Number CardNumber
	// Expiry is MM-YY, e.g. "12-28".
	Expiry string
	// SecurityCode is optional.
	SecurityCode SecurityCode
}

// CardPayment is a sale or an authorization of a keyed card.
type CardPayment struct {
	Ref
	Card    Card
	Billing Billing
	// Amount is the amount charged before tip (tax included).
	Amount Amount
	// TipAmount and TaxAmount are optional; TaxAmount is part of Amount
	// and applies to level 2 transactions.
	TipAmount, TaxAmount Amount
	Level2               *Level2
}

// CardRefund is an unlinked credit to the card supplied.
type CardRefund struct {
	Ref
	Card    Card
	Billing Billing
	Amount  Amount
}

// CardTokenize saves a card; later payments use the answer's UniqueTransID.
type CardTokenize struct {
	Ref
	Card    Card
	Billing Billing
}

// VoidRequest voids an unsettled authorization or payment. On the direct
// gateway a void more than 25 minutes after the transaction becomes a
// refund (the answer's TransactionType is then CreditReturn).
type VoidRequest struct {
	Ref
	UniqueTransID string
}

// AccountType is a bank account's type.
type AccountType string

// The bank account types.
const (
	Checking AccountType = "Checking"
	Savings  AccountType = "Savings"
)

// BankAccount is keyed bank account data.
type BankAccount struct {
	HolderName    string
	Number        BankAccountNumber
	RoutingNumber string
	Type          AccountType // optional; Checking when empty upstream
}

// ACHPayment is an ACH sale (a debit) or an ACH refund (a credit).
type ACHPayment struct {
	Ref
	Account           BankAccount
	Amount            Amount
	CheckNumber       string
	BillingAddress    string
	BillingPostalCode string
}

// ACHTokenize saves a bank account.
type ACHTokenize struct {
	Ref
	Account           BankAccount
	BillingAddress    string
	BillingPostalCode string
}

// TokenizedPayment is a sale or authorization on a saved card: the
// UniqueTransID of an earlier tokenize, sale or authorization.
type TokenizedPayment struct {
	Ref
	UniqueTransID        string
	Amount               Amount
	TipAmount, TaxAmount Amount
	Billing              Billing
	Level2               *Level2
}

// TokenizedRefund is a refund linked to an earlier payment by its
// UniqueTransID.
type TokenizedRefund struct {
	Ref
	UniqueTransID string
	Amount        Amount
}

// AdjustmentType says what an adjustment changes.
type AdjustmentType string

// The adjustment types: a sale's tip, or an authorization's amount and tip.
const (
	SaleAdjust AdjustmentType = "SaleAdjust"
	AuthAdjust AdjustmentType = "AuthAdjust"
)

// Adjustment changes the tip of an unsettled sale (SaleAdjust) or the
// amount and tip of an authorization (AuthAdjust).
type Adjustment struct {
	Ref
	UniqueTransID string
	Type          AdjustmentType
	Amount        Amount // AuthAdjust only
	TipAmount     Amount
}

// Force captures an authorization (tokenizedForce): it goes into the
// current batch, optionally for another amount and tip.
type Force struct {
	Ref
	UniqueTransID        string
	Amount               Amount
	TipAmount, TaxAmount Amount
}
