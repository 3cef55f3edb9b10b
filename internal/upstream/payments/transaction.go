package payments

import "encoding/json"

// Transaction is the upstream's answer to every operation and to a
// read-back: the published fields of transactionResponse, all strings.
type Transaction struct {
	ExternalTransactionID string `json:"externalTransactionId"`
	// TransactionType is one of the TypeXxx constants.
	TransactionType string `json:"transactionType"`
	// ResultStatus is "true" for an approval; trust it, not the message.
	ResultStatus string `json:"resultStatus"`
	// ResultMessage is display text: "Approved", or the decline reason.
	ResultMessage        string          `json:"resultMessage"`
	UniqueTransID        string          `json:"uniqueTransId"`
	TransactionReference string          `json:"transactionReference"`
	ApprovalNumberResult string          `json:"approvalNumberResult"`
	Amount               string          `json:"amount"`
	AmountBalance        string          `json:"amountBalance"`
	AmountProcessed      string          `json:"amountProcessed"`
	AmountTaxed          string          `json:"amountTaxed"`
	AmountTipped         string          `json:"amountTipped"`
	BillingName          string          `json:"billingName"`
	MaskedAccount        string          `json:"maskedAccount"`
	AccountCardType      string          `json:"accountCardType"`
	AccountExpiryDate    string          `json:"accountExpiryDate"`
	AccountEntryMethod   string          `json:"accountEntryMethod"`
	AVSResponseCode      string          `json:"avsResponseCode"`
	AVSResponseText      string          `json:"avsResponseText"`
	CVVResponseCode      string          `json:"cvvResponseCode"`
	CVVResponseText      string          `json:"cvvResponseText"`
	BatchNumber          string          `json:"batchNumber"`
	Cashier              string          `json:"cashier"`
	IsPartialApproval    string          `json:"isPartialApproval"`
	Level2               *Level2         `json:"level2,omitempty"`
	EMV                  json.RawMessage `json:"emv,omitempty"`

	// HeldForReview is "true" when the operator holds a return for review
	// (24 to 48 hours): partial, to another card, or larger than usual;
	// ReviewReasons lists why, comma-separated. Documented by the sandbox.
	HeldForReview string `json:"heldForReview,omitempty"`
	ReviewReasons string `json:"reviewReasons,omitempty"`
	// ACHReturnCode ("R01", "R29", ...), ACHReturnReason and ACHReturnDate
	// (YYYY-MM-DD) appear on read-back of an ACH sale the bank returned.
	// Documented by the sandbox.
	ACHReturnCode   string `json:"achReturnCode,omitempty"`
	ACHReturnReason string `json:"achReturnReason,omitempty"`
	ACHReturnDate   string `json:"achReturnDate,omitempty"`
}

// The transaction types the upstream answers with.
const (
	TypeCreditSale     = "CreditSale"
	TypeCreditReturn   = "CreditReturn"
	TypeCreditSaveCard = "CreditSaveCard"
	TypeCreditAuth     = "CreditAuth"
	TypeCreditForce    = "CreditForce"
	TypeVoid           = "Void"
	TypeAdjustment     = "Adjustment"
	TypeACHSale        = "AchSale"
	TypeACHReturn      = "AchReturn"
	TypeACHSaveAccount = "AchSaveAccount"
)

// Outcome sums up an answer.
type Outcome int

// The outcomes of a transaction.
const (
	Declined Outcome = iota
	Approved
	PartiallyApproved
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Approved:
		return "approved"
	case PartiallyApproved:
		return "partially approved"
	}
	return "declined"
}

// Approved reports an approval, partial or whole: resultStatus "true".
func (t *Transaction) Approved() bool { return t.ResultStatus == "true" }

// Outcome returns Approved, PartiallyApproved or Declined.
func (t *Transaction) Outcome() Outcome {
	switch {
	case !t.Approved():
		return Declined
	case t.IsPartialApproval == "true":
		return PartiallyApproved
	}
	return Approved
}

// DeclineReason returns the upstream's reason for a decline ("" when
// approved).
func (t *Transaction) DeclineReason() string {
	if t.Approved() {
		return ""
	}
	return t.ResultMessage
}

// IsRefund reports a return, as a void more than 25 minutes after the
// transaction becomes.
func (t *Transaction) IsRefund() bool {
	return t.TransactionType == TypeCreditReturn || t.TransactionType == TypeACHReturn
}
