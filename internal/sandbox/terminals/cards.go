package terminals

import "slices"

// testCard is an emulated card a cardholder presents. Only its masked
// number exists: the sandbox never holds a card number.
type testCard struct {
	Key         string // admin's name for it
	Label       string
	Brand       string // AccountCardType
	Masked      string // MaskedAccount
	Expiry      string // MMYY
	BillingName string
	AID         string // the EMV application id
}

// testCards are the cards of the emulated cardholder. Visa is presented
// unless the amount table or the admin's next card says otherwise.
var testCards = []testCard{
	{Key: "visa", Label: "Visa", Brand: "VS", Masked: "************4223", Expiry: "1230", BillingName: "SANDBOX/VISA", AID: "A0000000031010"},
	{Key: "mastercard", Label: "Mastercard", Brand: "MC", Masked: "************4444", Expiry: "0931", BillingName: "SANDBOX/MASTERCARD", AID: "A0000000041010"},
	{Key: "amex", Label: "American Express", Brand: "AX", Masked: "***********0005", Expiry: "0532", BillingName: "SANDBOX/AMEX", AID: "A00000002501"},
	{Key: "discover", Label: "Discover", Brand: "DS", Masked: "************1117", Expiry: "1129", BillingName: "SANDBOX/DISCOVER", AID: "A0000001523010"},
}

// cardByKey returns the test card key, or false.
func cardByKey(key string) (testCard, bool) {
	i := slices.IndexFunc(testCards, func(c testCard) bool { return c.Key == key })
	if i < 0 {
		return testCard{}, false
	}
	return testCards[i], true
}

// terminalOutcome is what the emulated cardholder and terminal do with a
// card-present transaction, chosen by the amount's cents.
type terminalOutcome int

const (
	approve terminalOutcome = iota
	decline
	cancelAtTerminal
	timeoutAtTerminal
	cardRemoved
)

// The test amounts: the cents of the amount choose the outcome or the
// card. Any other amount is approved with the default card.
const (
	centsDecline     = 51
	centsCancel      = 52
	centsTimeout     = 53
	centsCardRemoved = 54
	centsMastercard  = 61
	centsAmex        = 62
	centsDiscover    = 63
)

// byAmount returns the outcome and card the amount table gives amount.
func byAmount(amount cents) (terminalOutcome, string) {
	switch amount % 100 {
	case centsDecline:
		return decline, "visa"
	case centsCancel:
		return cancelAtTerminal, ""
	case centsTimeout:
		return timeoutAtTerminal, ""
	case centsCardRemoved:
		return cardRemoved, "visa"
	case centsMastercard:
		return approve, "mastercard"
	case centsAmex:
		return approve, "amex"
	case centsDiscover:
		return approve, "discover"
	}
	return approve, "visa"
}

// outcomeMessages are the terminal's ResultMessage texts.
var outcomeMessages = map[terminalOutcome]string{
	approve:           "APPROVED",
	decline:           "DECLINED",
	cancelAtTerminal:  "CANCELLED",
	timeoutAtTerminal: "TIMEOUT",
	cardRemoved:       "CARD REMOVED",
}
