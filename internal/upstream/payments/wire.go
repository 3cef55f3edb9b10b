package payments

import "strings"

// wireData is the transactionData or accountData object of a request. It is
// built right before sending and never leaves the client: the card digits
// reach it only through the unexported reveal methods.
type wireData struct {
	Amount                string  `json:"amount,omitempty"`
	CardNumber            string  `json:"cardNumber,omitempty"`
	CardExpirationDate    string  `json:"cardExpirationDate,omitempty"`
	CardSecurityCode      string  `json:"cardSecurityCode,omitempty"`
	AccountHolderName     string  `json:"accountHolderName,omitempty"`
	AccountNumber         string  `json:"accountNumber,omitempty"`
	RoutingNumber         string  `json:"routingNumber,omitempty"`
	AccountType           string  `json:"accountType,omitempty"`
	CheckNumber           string  `json:"checkNumber,omitempty"`
	UniqueTransID         string  `json:"uniqueTransId,omitempty"`
	AdjustmentType        string  `json:"adjustmentType,omitempty"`
	ExternalTransactionID string  `json:"externalTransactionId"`
	BillingName           string  `json:"billingName,omitempty"`
	BillingAddress        string  `json:"billingAddress,omitempty"`
	BillingPostalCode     string  `json:"billingPostalCode,omitempty"`
	CashierID             string  `json:"cashierId,omitempty"`
	TipAmount             string  `json:"tipAmount,omitempty"`
	TaxAmount             string  `json:"taxAmount,omitempty"`
	TransactionReference  string  `json:"transactionReference,omitempty"`
	Level2                *Level2 `json:"level2,omitempty"`
}

// String never shows the data: a wireData that reached a printer by
// mistake shows nothing of the card.
func (wireData) String() string { return "payments.wireData{…}" }

// wireBody is the JSON body: one wrapper object.
type wireBody struct {
	TransactionData *wireData `json:"transactionData,omitempty"`
	AccountData     *wireData `json:"accountData,omitempty"`
}

// checker collects the first problem found in a request.
type checker struct{ err *ValidationError }

func (c *checker) fail(field, msg string) {
	if c.err == nil {
		c.err = &ValidationError{Field: field, Message: msg}
	}
}

func (c *checker) ref(r Ref, void bool) {
	if !isUUIDv4(r.ExternalTransactionID) {
		c.fail("externalTransactionId", "must be a v4 UUID")
	}
	if r.IdempotencyKey != "" && !isUUIDv4(r.IdempotencyKey) {
		c.fail("idempotency-key", "must be a v4 UUID")
	}
	if !void && r.TransactionReference != "" && len([]rune(r.TransactionReference)) < 3 {
		c.fail("transactionReference", "must be at least 3 characters")
	}
}

func (c *checker) amount(field string, a Amount, required bool) {
	switch {
	case a == "" && required:
		c.fail(field, "is required")
	case a != "" && !a.Valid():
		c.fail(field, "must be a decimal with two decimals, such as 10.00")
	}
}

func (c *checker) card(k Card) {
	if k.Number.IsZero() {
		c.fail("cardNumber", "is required")
	}
	if !validExpiry(k.Expiry) {
		c.fail("cardExpirationDate", "must be MM-YY")
	}
}

func (c *checker) bank(b BankAccount) {
	if strings.TrimSpace(b.HolderName) == "" {
		c.fail("accountHolderName", "is required")
	}
	if b.Number.IsZero() {
		c.fail("accountNumber", "is required")
	}
	if !ValidRoutingNumber(b.RoutingNumber) {
		c.fail("routingNumber", "must be 9 digits that pass the ABA checksum")
	}
	if b.Type != "" && b.Type != Checking && b.Type != Savings {
		c.fail("accountType", "must be Checking or Savings")
	}
}

func (c *checker) level2(l *Level2) {
	if l != nil && (l.PurchaseID == "" || l.PurchaseOrderNumber == "") {
		c.fail("level2", "needs purchaseId and purchaseOrderNumber")
	}
}

func (c *checker) uniqueTransID(id string) {
	if strings.TrimSpace(id) == "" {
		c.fail("uniqueTransId", "is required")
	}
}

// refData fills the fields every request shares.
func refData(r Ref, void bool) *wireData {
	d := &wireData{ExternalTransactionID: r.ExternalTransactionID, CashierID: r.CashierID}
	if !void {
		d.TransactionReference = r.TransactionReference
	}
	return d
}

func (d *wireData) setCard(k Card, b Billing) {
	d.CardNumber = k.Number.reveal()
	d.CardExpirationDate = k.Expiry
	d.CardSecurityCode = k.SecurityCode.reveal()
	d.BillingName, d.BillingAddress, d.BillingPostalCode = b.Name, b.Address, b.PostalCode
}

func (d *wireData) setBank(b BankAccount) {
	d.AccountHolderName = b.HolderName
	d.AccountNumber = b.Number.reveal()
	d.RoutingNumber = b.RoutingNumber
	d.AccountType = string(b.Type)
}

// validExpiry checks the MM-YY shape (the upstream declines an expired
// card; it is not the client's call).
func validExpiry(s string) bool {
	return len(s) == 5 && s[2] == '-' && allDigits(s[:2]) && allDigits(s[3:]) && s[:2] >= "01" && s[:2] <= "12"
}

// ValidRoutingNumber reports nine digits that pass the ABA checksum
// (3·d1 + 7·d2 + d3 + 3·d4 + 7·d5 + d6 + 3·d7 + 7·d8 + d9 ≡ 0 mod 10).
func ValidRoutingNumber(s string) bool {
	if len(s) != 9 || !allDigits(s) {
		return false
	}
	w := [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}
	sum := 0
	for i := range 9 {
		sum += w[i] * int(s[i]-'0')
	}
	return sum%10 == 0
}

// isUUIDv4 checks the text form of a version 4 UUID.
func isUUIDv4(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return s[14] == '4' && strings.ContainsRune("89abAB", rune(s[19]))
}
