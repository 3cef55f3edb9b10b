package payments

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"time"
)

// answer is the transactionResponse object: every published field, all
// strings, plus the sandbox's documented review and ACH-return fields.
type answer struct {
	ExternalTransactionID string  `json:"externalTransactionId"`
	TransactionType       string  `json:"transactionType"`
	ResultStatus          string  `json:"resultStatus"`
	ResultMessage         string  `json:"resultMessage"`
	UniqueTransID         string  `json:"uniqueTransId"`
	TransactionReference  string  `json:"transactionReference"`
	ApprovalNumberResult  string  `json:"approvalNumberResult"`
	Amount                string  `json:"amount"`
	AmountBalance         string  `json:"amountBalance"`
	AmountProcessed       string  `json:"amountProcessed"`
	AmountTaxed           string  `json:"amountTaxed"`
	AmountTipped          string  `json:"amountTipped"`
	BillingName           string  `json:"billingName"`
	MaskedAccount         string  `json:"maskedAccount"`
	AccountCardType       string  `json:"accountCardType"`
	AccountExpiryDate     string  `json:"accountExpiryDate"`
	AccountEntryMethod    string  `json:"accountEntryMethod"`
	AVSResponseCode       string  `json:"avsResponseCode"`
	AVSResponseText       string  `json:"avsResponseText"`
	CVVResponseCode       string  `json:"cvvResponseCode"`
	CVVResponseText       string  `json:"cvvResponseText"`
	BatchNumber           string  `json:"batchNumber"`
	Cashier               string  `json:"cashier"`
	IsPartialApproval     string  `json:"isPartialApproval"`
	Level2                *level2 `json:"level2,omitempty"`
	HeldForReview         string  `json:"heldForReview,omitempty"`
	ReviewReasons         string  `json:"reviewReasons,omitempty"`
	ACHReturnCode         string  `json:"achReturnCode,omitempty"`
	ACHReturnReason       string  `json:"achReturnReason,omitempty"`
	ACHReturnDate         string  `json:"achReturnDate,omitempty"`
}

// level2 is the level 2 object, echoed in the answer.
type level2 struct {
	IsTaxExempt           bool   `json:"isTaxExempt"`
	PurchaseID            string `json:"purchaseId"`
	PurchaseOrderNumber   string `json:"purchaseOrderNumber"`
	CustomerTaxID         string `json:"customerTaxId,omitempty"`
	DestinationPostalCode string `json:"destinationPostalCode,omitempty"`
	ProductDescription    string `json:"productDescription,omitempty"`
}

// The transaction types.
const (
	typeSale      = "CreditSale"
	typeReturn    = "CreditReturn"
	typeSaveCard  = "CreditSaveCard"
	typeAuth      = "CreditAuth"
	typeForce     = "CreditForce"
	typeVoid      = "Void"
	typeAdjust    = "Adjustment"
	typeACHSale   = "AchSale"
	typeACHReturn = "AchReturn"
	typeACHSave   = "AchSaveAccount"
)

// Transaction is one transaction as the sandbox keeps it: the answer it
// gave and its life since (batch, settlement, void, refunds, capture, ACH
// return). No card or account number is kept, only a vault token.
type Transaction struct {
	OID           string    `json:"oid"`
	UniqueTransID string    `json:"uniqueTransId"`
	ExternalID    string    `json:"externalTransactionId"`
	Op            string    `json:"op"` // the operation requested, e.g. "void"
	Type          string    `json:"transactionType"`
	Approved      bool      `json:"approved"`
	CreatedAt     time.Time `json:"createdAt"`
	// Cents: amount before tip, tip, tax, and the total approved.
	AmountCents    int64  `json:"amountCents"`
	TipCents       int64  `json:"tipCents"`
	TaxCents       int64  `json:"taxCents"`
	ProcessedCents int64  `json:"processedCents"`
	VaultToken     string `json:"vaultToken,omitempty"`
	// Ref is the uniqueTransId this one refers to (void, refund, force...).
	Ref string `json:"ref,omitempty"`
	// Batch is the batch holding it (0: none: declines, authorizations,
	// tokens, voids).
	Batch         int        `json:"batch,omitempty"`
	SettledAt     *time.Time `json:"settledAt,omitempty"`
	VoidedBy      string     `json:"voidedBy,omitempty"`
	RefundedCents int64      `json:"refundedCents,omitempty"`
	CapturedBy    string     `json:"capturedBy,omitempty"`
	Review        []string   `json:"review,omitempty"`
	// ReturnCode is the ACH return a test account number schedules;
	// ReturnDueAt when it arrives; ACHReturn once the admin returned it.
	ReturnCode  string     `json:"returnCode,omitempty"`
	ReturnDueAt *time.Time `json:"returnDueAt,omitempty"`
	ACHReturn   *achReturn `json:"achReturn,omitempty"`
	Answer      answer     `json:"answer"`
}

// achReturn is a bank's return of an ACH sale.
type achReturn struct {
	Code   string    `json:"code"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// achReturnReasons names the return codes the sandbox can produce.
var achReturnReasons = map[string]string{
	"R01": "Insufficient Funds",
	"R02": "Account Closed",
	"R03": "No Account/Unable to Locate Account",
	"R10": "Customer Advises Not Authorized",
	"R29": "Corporate Customer Advises Not Authorized",
}

// capturable reports an authorization that can still be captured.
func (t *Transaction) lapsed(now time.Time, lapse time.Duration) bool {
	return t.Type == typeAuth && t.Approved && t.CapturedBy == "" && t.VoidedBy == "" && now.Sub(t.CreatedAt) > lapse
}

// status is the transaction's state for the admin page.
func (t *Transaction) status(now time.Time, lapse time.Duration) string {
	switch {
	case !t.Approved:
		return "declined"
	case t.VoidedBy != "":
		return "voided"
	case t.ACHReturn != nil:
		return "returned " + t.ACHReturn.Code
	case t.ReturnDueAt != nil && !now.Before(*t.ReturnDueAt):
		return "returned " + t.ReturnCode
	case t.lapsed(now, lapse):
		return "lapsed"
	case t.CapturedBy != "":
		return "captured"
	case t.SettledAt != nil:
		return "settled"
	case t.Batch > 0:
		return "in open batch"
	}
	return "approved"
}

// view is the answer as a read-back shows it now: the first answer plus a
// bank's return that has arrived since.
func (t *Transaction) view(now time.Time) answer {
	a := t.Answer
	r := t.ACHReturn
	if r == nil && t.ReturnDueAt != nil && !now.Before(*t.ReturnDueAt) {
		r = &achReturn{Code: t.ReturnCode, Reason: achReturnReasons[t.ReturnCode], At: *t.ReturnDueAt}
	}
	if r != nil {
		a.ACHReturnCode, a.ACHReturnReason, a.ACHReturnDate = r.Code, r.Reason, r.At.UTC().Format(time.DateOnly)
	}
	return a
}

// Batch is one settlement batch of an account.
type Batch struct {
	OID       string     `json:"oid"`
	Number    int        `json:"number"`
	OpenedAt  time.Time  `json:"openedAt"`
	SettledAt *time.Time `json:"settledAt,omitempty"`
	Count     int        `json:"count"`
	// NetCents is sales less returns.
	NetCents int64 `json:"netCents"`
}

// newUniqueTransID returns an id of the published shape: two groups of 32
// hex digits joined by "-".
func newUniqueTransID() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:32] + "-" + h[32:]
}

// newApprovalNumber returns a six-character approval code.
func newApprovalNumber() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	var b [6]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// money formats cents as the API's decimal string.
func money(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// sortNewest sorts xs newest first by when.
func sortNewest[T any](xs []T, when func(T) time.Time) {
	sort.SliceStable(xs, func(i, j int) bool { return when(xs[i]).After(when(xs[j])) })
}
