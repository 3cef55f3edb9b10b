package payments

// opSpec describes one operation of the API: its path, its wrapper object
// and its fields.
type opSpec struct {
	name     string // the path below transactions/, e.g. "ach/sale"
	wrapper  string // transactionData or accountData
	required []string
	optional []string
	// card: the request carries a keyed card; bank: a bank account;
	// linked: it refers to an earlier transaction by uniqueTransId.
	card, bank, linked bool
}

// Field groups shared by several operations.
var (
	billing     = []string{"billingAddress", "billingName", "billingPostalCode"}
	achOptional = []string{"accountType", "billingAddress", "billingPostalCode", "cashierId", "transactionReference"}
)

func join(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// operations are every operation of the specification and of the vendor's
// published client, by path.
var operations = map[string]*opSpec{
	"authorization": {name: "authorization", wrapper: "transactionData", card: true,
		required: []string{"amount", "cardNumber", "cardExpirationDate", "externalTransactionId"},
		optional: join(billing, []string{"cardSecurityCode", "cashierId", "tipAmount", "transactionReference", "taxAmount", "level2"})},
	"sale": {name: "sale", wrapper: "transactionData", card: true,
		required: []string{"amount", "cardNumber", "cardExpirationDate", "externalTransactionId"},
		optional: join(billing, []string{"cardSecurityCode", "cashierId", "tipAmount", "transactionReference", "taxAmount", "level2"})},
	"void": {name: "void", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "externalTransactionId"},
		optional: []string{"cashierId"}},
	"refund": {name: "refund", wrapper: "transactionData", card: true,
		required: []string{"amount", "cardNumber", "cardExpirationDate", "externalTransactionId"},
		optional: join(billing, []string{"cardSecurityCode", "cashierId", "transactionReference"})},
	"tokenize": {name: "tokenize", wrapper: "accountData", card: true,
		required: []string{"cardNumber", "cardExpirationDate", "externalTransactionId"},
		optional: join(billing, []string{"cardSecurityCode", "cashierId", "transactionReference"})},
	"ach/sale": {name: "ach/sale", wrapper: "transactionData", bank: true,
		required: []string{"amount", "accountHolderName", "accountNumber", "routingNumber", "externalTransactionId"},
		optional: join(achOptional, []string{"checkNumber"})},
	"ach/refund": {name: "ach/refund", wrapper: "transactionData", bank: true,
		required: []string{"amount", "accountHolderName", "accountNumber", "routingNumber", "externalTransactionId"},
		optional: join(achOptional, []string{"checkNumber"})},
	"ach/tokenize": {name: "ach/tokenize", wrapper: "accountData", bank: true,
		required: []string{"accountHolderName", "accountNumber", "routingNumber", "externalTransactionId"},
		optional: achOptional},
	"tokenizedPayment": {name: "tokenizedPayment", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "amount", "externalTransactionId"},
		optional: join(billing, []string{"transactionReference", "cashierId", "tipAmount", "taxAmount", "level2"})},
	"tokenizedAuth": {name: "tokenizedAuth", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "amount", "externalTransactionId"},
		optional: join(billing, []string{"transactionReference", "cashierId", "tipAmount", "taxAmount", "level2"})},
	"tokenizedRefund": {name: "tokenizedRefund", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "amount", "externalTransactionId"},
		optional: join(billing, []string{"transactionReference", "cashierId"})},
	"adjust": {name: "adjust", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "externalTransactionId", "adjustmentType"},
		optional: []string{"amount", "tipAmount", "cashierId", "transactionReference"}},
	"tokenizedForce": {name: "tokenizedForce", wrapper: "transactionData", linked: true,
		required: []string{"uniqueTransId", "externalTransactionId"},
		optional: []string{"amount", "tipAmount", "taxAmount", "cashierId", "transactionReference"}},
}

// vendorExtras are fields the vendor's published client may send that the
// specification does not list: accepted and ignored.
var vendorExtras = map[string]bool{"origin": true, "funding": true}
