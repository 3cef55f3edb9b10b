package accounts

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The bounds of application data. The specification publishes none; these are the ones the
// portal chose for its drafts (its table of bounds), kept here by the published names, so
// that the sandbox refuses exactly what the portal's checklist refuses. A text field not
// listed holds at most defaultMaxLength characters.

// defaultMaxLength bounds a text field the table does not name.
const defaultMaxLength = 255

// maxLengths maps a field path, without list positions ("owners.firstName"), to the most
// characters it may hold.
var maxLengths = func() map[string]int {
	m := map[string]int{
		"legalEntity.name": 200, "legalEntity.type": 20, "legalEntity.tin": 25,
		"legalEntity.incorporationDate": 10, "legalEntity.incorporationState": 10,
		"business.dba": 200, "business.type": 20, "business.goodsAndServices": 500,
		"business.phone": 25, "business.email": 254, "business.websiteUrl": 255, "business.mcc": 10,
		"business.monthlyVolume": 20, "business.averageTicket": 20, "business.highTicket": 20,
		"owners.firstName": 100, "owners.middleName": 100, "owners.lastName": 100, "owners.title": 100,
		"owners.ssn": 25, "owners.dob": 10, "owners.phone": 25, "owners.email": 254,
		"banking.depositAccount": 25, "banking.depositRouting": 25, "banking.accountType": 20,
		"banking.accountHolderName": 100,
		"contact.name":              100, "contact.email": 254, "contact.phone": 25,
	}
	for _, prefix := range []string{"business.address.", "legalEntity.address.", "owners.address."} {
		m[prefix+"line1"], m[prefix+"line2"], m[prefix+"city"] = 100, 100, 60
		m[prefix+"state"], m[prefix+"postalCode"] = 10, 10
	}
	return m
}()

// maxAmounts bounds the amounts, in dollars: a monthly volume under a billion, tickets under
// ten million.
var maxAmounts = map[string]string{
	"business.monthlyVolume": "999999999.99",
	"business.averageTicket": "9999999.99",
	"business.highTicket":    "9999999.99",
}

// earliestIncorporation is the earliest incorporation date accepted.
const earliestIncorporation = "1800-01-01"

var listPosition = regexp.MustCompile(`\[\d*\]`)

// boundPath turns "owners[2].address.city" and "owners[].address.city" into
// "owners.address.city".
func boundPath(path string) string { return listPosition.ReplaceAllString(path, "") }

// maxLength is the most characters the text field at path may hold.
func maxLength(path string) int {
	if n, ok := maxLengths[boundPath(path)]; ok {
		return n
	}
	return defaultMaxLength
}

// textProblem checks a text value at path: UTF-8 without control characters or line
// breaks (no field of application data spans lines), and within its length.
func textProblem(path, s string) string {
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return "must be valid UTF-8 text"
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029':
			return "must not contain control characters or line breaks"
		}
	}
	if limit := maxLength(path); utf8.RuneCountInString(s) > limit {
		return fmt.Sprintf("must be at most %d characters", limit)
	}
	return ""
}

// amountBound checks an amount against its maximum; "" when within it.
func amountBound(path, s string) string {
	limit, ok := maxAmounts[boundPath(path)]
	if !ok {
		return ""
	}
	v, ok1 := new(big.Rat).SetString(s)
	m, _ := new(big.Rat).SetString(limit)
	if ok1 && v.Cmp(m) > 0 {
		return "must be at most " + groupThousands(limit)
	}
	return ""
}

// groupThousands writes "999999999.99" as "999,999,999.99".
func groupThousands(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
