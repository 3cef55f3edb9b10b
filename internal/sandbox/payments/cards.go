package payments

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// behavior is what a test card, a test amount or a test bank account makes
// the processor do.
type behavior string

// The behaviours.
const (
	approve       behavior = "approve"
	decline       behavior = "decline"
	insufficient  behavior = "insufficientFunds"
	partial       behavior = "partialApproval"
	avsMismatch   behavior = "avsMismatch"
	cvvMismatch   behavior = "cvvMismatch"
	procTimeout   behavior = "processorTimeout"
	expired       behavior = "expiredCard"
	achReturnR01  behavior = "achReturnR01"
	achReturnR29  behavior = "achReturnR29"
	unknownBehave behavior = ""
)

// TestCard is one card number the sandbox accepts. Any other number is
// refused as live-looking, so no real card number can be rehearsed with.
type TestCard struct {
	Number   string `json:"number"`
	Brand    string `json:"brand"`
	Behavior string `json:"behavior"`
}

// TestCards is the documented list of test card numbers (README.md).
var TestCards = []TestCard{
	{"4111111111111111", "Visa", string(approve)},
	{"4242424242424242", "Visa", string(approve)},
	{"5555555555554444", "Mastercard", string(approve)},
	{"2223003122003222", "Mastercard", string(approve)},
	{"378282246310005", "American Express", string(approve)},
	{"6011111111111117", "Discover", string(approve)},
	{"3566002020360505", "JCB", string(approve)},
	{"36227206271667", "Diners Club", string(approve)},
	{"4000000000000002", "Visa", string(decline)},
	{"5105105105105100", "Mastercard", string(decline)},
	{"4000000000009995", "Visa", string(insufficient)},
	{"4000000000000051", "Visa", string(partial)},
	{"4000000000000010", "Visa", string(avsMismatch)},
	{"4000000000000101", "Visa", string(cvvMismatch)},
	{"4000000000000119", "Visa", string(procTimeout)},
}

// testCardIndex maps a number to its test card.
var testCardIndex = func() map[string]TestCard {
	m := make(map[string]TestCard, len(TestCards))
	for _, c := range TestCards {
		m[c.Number] = c
	}
	return m
}()

// amountTriggers are amounts that drive the outcome on any card that
// would otherwise be approved (like the big processors' test amounts).
var amountTriggers = map[int64]behavior{
	200000: decline,      // 2000.00
	200100: insufficient, // 2001.00
	200200: partial,      // 2002.00
	200300: avsMismatch,  // 2003.00
	201000: cvvMismatch,  // 2010.00
	300000: procTimeout,  // 3000.00
}

// Test bank accounts whose ACH sales the bank returns after settlement.
const (
	achTestR01 = "1111111111" // returned R01, insufficient funds
	achTestR29 = "2222222222" // returned R29, not authorised
)

// cardTypeCodes are the accountCardType codes per brand.
var cardTypeCodes = map[string]string{
	"Visa": "VS", "Mastercard": "MC", "American Express": "AX", "Discover": "DS", "JCB": "JC", "Diners Club": "DC",
}

// brandOf names the scheme of a card number's leading digits.
func brandOf(d string) string {
	p := func(n int) string {
		if len(d) < n {
			return ""
		}
		return d[:n]
	}
	switch {
	case strings.HasPrefix(d, "4"):
		return "Visa"
	case p(2) >= "51" && p(2) <= "55", p(4) >= "2221" && p(4) <= "2720":
		return "Mastercard"
	case p(2) == "34", p(2) == "37":
		return "American Express"
	case p(4) == "6011", p(2) == "65", p(3) >= "644" && p(3) <= "649":
		return "Discover"
	case p(4) >= "3528" && p(4) <= "3589":
		return "JCB"
	case p(2) == "36", p(2) == "38", p(3) >= "300" && p(3) <= "305":
		return "Diners Club"
	}
	return ""
}

// luhn reports whether digits pass the Luhn check.
func luhn(d string) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// validRouting reports nine digits passing the ABA checksum.
func validRouting(s string) bool {
	if len(s) != 9 || !digits(s) {
		return false
	}
	w := [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}
	sum := 0
	for i := range 9 {
		sum += w[i] * int(s[i]-'0')
	}
	return sum%10 == 0
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// fingerprint is a keyed hash of a card or account number: the same number
// gives the same fingerprint on this sandbox, and the number cannot be
// recovered from it.
func (a *Area) fingerprint(kind, number string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(kind + ":" + number))
	return hex.EncodeToString(m.Sum(nil))
}
