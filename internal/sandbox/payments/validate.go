package payments

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// request is a validated request body.
type request struct {
	op *opSpec
	s  map[string]string // every string field sent
	// Cents of amount, tipAmount and taxAmount; has* says whether sent.
	amount, tip, tax          int64
	hasAmount, hasTip, hasTax bool
	level2                    *level2
}

// str returns a string field ("" when absent).
func (q *request) str(name string) string { return q.s[name] }

var (
	moneyPattern   = regexp.MustCompile(`^\d{1,9}\.\d{2}$`)
	expiryPattern  = regexp.MustCompile(`^(0[1-9]|1[0-2])-\d{2}$`)
	uuidV4Pattern  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	uniqueIDShape  = regexp.MustCompile(`^[0-9a-f]{32}-[0-9a-f]{32}$`)
	postalPattern  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 \-]{1,8}[A-Za-z0-9]$`)
	fieldName      = regexp.MustCompile(`^[A-Za-z0-9_]{1,40}$`)
	appVersionRule = regexp.MustCompile(`^[a-zA-Z\d\- _.]{1,50}$`)
)

// maxAmountCents is the largest amount the sandbox accepts (99,999.99).
const maxAmountCents = 9_999_999

// parseRequest checks a body against op's rules: the wrapper, required
// and allowed fields, and each field's form. The first fault is answered
// with 400 naming the field.
func parseRequest(op *opSpec, body map[string]any) (*request, error) {
	data, err := unwrap(op, body)
	if err != nil {
		return nil, err
	}
	q, err := readFields(op, data)
	if err != nil {
		return nil, err
	}
	for _, f := range op.required {
		if _, sent := data[f]; !sent || (f != "level2" && strings.TrimSpace(q.s[f]) == "") {
			return nil, kit.FieldError(op.wrapper+"."+f, "is required")
		}
	}
	if err := q.checkFields(); err != nil {
		return nil, err
	}
	return q, nil
}

// unwrap returns the object of op's wrapper (transactionData or
// accountData), the one field the body may hold.
func unwrap(op *opSpec, body map[string]any) (map[string]any, error) {
	rawData, ok := body[op.wrapper]
	for k := range body {
		switch {
		case k == op.wrapper:
		case k == "transactionData" || k == "accountData":
			return nil, kit.FieldError(k, "this operation takes its fields in "+op.wrapper)
		case !ok:
			return nil, kit.FieldError(op.wrapper, "is required: the fields go in a "+op.wrapper+" object")
		default:
			return nil, unknownField(k)
		}
	}
	if !ok {
		return nil, kit.FieldError(op.wrapper, "is required: the fields go in a "+op.wrapper+" object")
	}
	data, ok := rawData.(map[string]any)
	if !ok {
		return nil, kit.FieldError(op.wrapper, "must be an object")
	}
	return data, nil
}

// readFields keeps the fields of data that op takes: level2 as an object,
// every other as a string. Vendor extras are passed over.
func readFields(op *opSpec, data map[string]any) (*request, error) {
	allowed := map[string]bool{}
	for _, f := range append(append([]string{}, op.required...), op.optional...) {
		allowed[f] = true
	}
	q := &request{op: op, s: map[string]string{}}
	for k, v := range data {
		path := op.wrapper + "." + k
		switch {
		case vendorExtras[k]:
			continue
		case !allowed[k]:
			return nil, unknownFieldIn(op.wrapper, k)
		case k == "level2":
			l2, err := parseLevel2(path, v)
			if err != nil {
				return nil, err
			}
			q.level2 = l2
		default:
			s, ok := v.(string)
			if !ok {
				return nil, kit.FieldError(path, "must be a string")
			}
			q.s[k] = s
		}
	}
	return q, nil
}

func unknownField(k string) *kit.APIError {
	if !fieldName.MatchString(k) {
		return kit.FieldError("body", "holds a field this operation does not take")
	}
	return kit.FieldError(k, "is not a field of this operation")
}

func unknownFieldIn(wrapper, k string) *kit.APIError {
	if !fieldName.MatchString(k) {
		return kit.FieldError(wrapper, "holds a field this operation does not take")
	}
	return kit.FieldError(wrapper+"."+k, "is not a field of this operation")
}

// checkFields checks the form of every string field sent. Messages never
// repeat a value.
func (q *request) checkFields() error {
	w := q.op.wrapper + "."
	var err error
	if v, ok := q.s["amount"]; ok {
		if q.amount, err = parseMoney(w+"amount", v, true); err != nil {
			return err
		}
		q.hasAmount = true
	}
	if v, ok := q.s["tipAmount"]; ok {
		if q.tip, err = parseMoney(w+"tipAmount", v, false); err != nil {
			return err
		}
		q.hasTip = true
	}
	if v, ok := q.s["taxAmount"]; ok {
		if q.tax, err = parseMoney(w+"taxAmount", v, false); err != nil {
			return err
		}
		q.hasTax = true
		if q.hasAmount && q.tax > q.amount {
			return kit.FieldError(w+"taxAmount", "cannot exceed amount, which includes it")
		}
	}
	for name, check := range fieldChecks {
		if v, ok := q.s[name]; ok {
			if msg := check(v, q); msg != "" {
				return kit.FieldError(w+name, msg)
			}
		}
	}
	return nil
}

// fieldChecks check one string field each; they return "" or a message.
var fieldChecks = map[string]func(v string, q *request) string{
	"cardNumber": func(v string, _ *request) string {
		switch {
		case !digits(v):
			return "must hold digits only"
		case len(v) < 12 || len(v) > 19:
			return "must have 12 to 19 digits"
		case !luhn(v):
			return "fails the Luhn check"
		case testCardIndex[v].Number == "":
			return "is not a sandbox test card: the sandbox refuses live-looking card numbers (see the test card table)"
		}
		return ""
	},
	"cardExpirationDate": func(v string, _ *request) string {
		if !expiryPattern.MatchString(v) {
			return "must be MM-YY"
		}
		return ""
	},
	"cardSecurityCode": func(v string, q *request) string {
		want := 3
		if brandOf(q.s["cardNumber"]) == "American Express" {
			want = 4
		}
		if !digits(v) || len(v) != want {
			return "must be " + strconv.Itoa(want) + " digits for this card"
		}
		return ""
	},
	"externalTransactionId": func(v string, _ *request) string {
		if !uuidV4Pattern.MatchString(v) {
			return "must be a v4 UUID"
		}
		return ""
	},
	"uniqueTransId": func(v string, _ *request) string {
		if !uniqueIDShape.MatchString(v) {
			return "must be a uniqueTransId: two groups of 32 hex digits joined by -"
		}
		return ""
	},
	"transactionReference": lengthCheck(3, 100),
	"cashierId":            lengthCheck(1, 50),
	"billingName":          lengthCheck(1, 100),
	"billingAddress":       lengthCheck(1, 100),
	"accountHolderName":    lengthCheck(1, 100),
	"billingPostalCode": func(v string, _ *request) string {
		if !postalPattern.MatchString(v) {
			return "must be a postal code of 3 to 10 letters, digits, spaces or dashes"
		}
		return ""
	},
	"accountNumber": func(v string, _ *request) string {
		if !digits(v) || len(v) < 3 || len(v) > 17 {
			return "must be 3 to 17 digits"
		}
		return ""
	},
	"routingNumber": func(v string, _ *request) string {
		if !validRouting(v) {
			return "must be 9 digits passing the ABA checksum (011401533 is the test routing number)"
		}
		return ""
	},
	"accountType": func(v string, _ *request) string {
		if v != "Checking" && v != "Savings" {
			return "must be Checking or Savings"
		}
		return ""
	},
	"checkNumber": func(v string, _ *request) string {
		if !digits(v) || len(v) > 15 {
			return "must be up to 15 digits"
		}
		return ""
	},
	"adjustmentType": func(v string, _ *request) string {
		if v != "SaleAdjust" && v != "AuthAdjust" {
			return "must be SaleAdjust or AuthAdjust"
		}
		return ""
	},
}

func lengthCheck(minLen, maxLen int) func(string, *request) string {
	return func(v string, _ *request) string {
		n := len([]rune(strings.TrimSpace(v)))
		if n < minLen || len([]rune(v)) > maxLen {
			return "must be " + strconv.Itoa(minLen) + " to " + strconv.Itoa(maxLen) + " characters"
		}
		return ""
	}
}

// parseMoney reads a two-decimal amount; positive requires more than 0.
func parseMoney(path, v string, positive bool) (int64, error) {
	if !moneyPattern.MatchString(v) {
		return 0, kit.FieldError(path, "must be a decimal string with two decimals, such as \"10.00\"")
	}
	whole, frac, _ := strings.Cut(v, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	c := w*100 + f
	switch {
	case positive && c == 0:
		return 0, kit.FieldError(path, "must be more than 0.00")
	case c > maxAmountCents:
		return 0, kit.FieldError(path, "must not exceed 99999.99")
	}
	return c, nil
}

// parseLevel2 checks the level2 object.
func parseLevel2(path string, v any) (*level2, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, kit.FieldError(path, "must be an object")
	}
	l := &level2{}
	strs := map[string]*string{"purchaseId": &l.PurchaseID, "purchaseOrderNumber": &l.PurchaseOrderNumber,
		"customerTaxId": &l.CustomerTaxID, "destinationPostalCode": &l.DestinationPostalCode, "productDescription": &l.ProductDescription}
	for k, val := range m {
		if k == "isTaxExempt" {
			b, ok := val.(bool)
			if !ok {
				return nil, kit.FieldError(path+".isTaxExempt", "must be a boolean")
			}
			l.IsTaxExempt = b
			continue
		}
		dst, known := strs[k]
		if !known {
			return nil, unknownFieldIn(path, k)
		}
		s, ok := val.(string)
		if !ok {
			return nil, kit.FieldError(path+"."+k, "must be a string")
		}
		if len([]rune(s)) > 100 {
			return nil, kit.FieldError(path+"."+k, "must be at most 100 characters")
		}
		*dst = s
	}
	for _, k := range []string{"purchaseId", "purchaseOrderNumber"} {
		if strings.TrimSpace(*strs[k]) == "" {
			return nil, kit.FieldError(path+"."+k, "is required when level2 is sent")
		}
	}
	return l, nil
}

// expiredAt reports whether an MM-YY expiry is past at now: a card is
// good through the last day of its month.
func expiredAt(mmYY string, now time.Time) bool {
	m, _ := strconv.Atoi(mmYY[:2])
	y, _ := strconv.Atoi(mmYY[3:])
	firstAfter := time.Date(2000+y, time.Month(m)+1, 1, 0, 0, 0, 0, time.UTC)
	return !now.Before(firstAfter)
}

// canonical is the body's canonical JSON, for comparing idempotent
// requests: keys sorted, whitespace gone.
func canonical(body map[string]any) []byte {
	raw, _ := json.Marshal(body)
	return raw
}
