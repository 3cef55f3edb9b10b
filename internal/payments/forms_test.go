package payments

import (
	"fmt"
	"testing"
	"time"
)

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		cents int64
		ok    bool
	}{
		{"$1,234.50", 123450, true}, {"1234.5", 123450, true}, {" 12 ", 1200, true}, {"$ 0.01", 1, true},
		{"99,999.99", 9999999, true}, {"100,000.00", 0, false}, {"0", 0, false}, {"-5", 0, false},
		{"12.345", 0, false}, {"1,23.00", 0, false}, {"abc", 0, false}, {"", 0, false},
	} {
		cents, msg := ParseAmount(c.in)
		if (msg == "") != c.ok || cents != c.cents {
			t.Errorf("ParseAmount(%q) = %d, %q", c.in, cents, msg)
		}
	}
	if c, msg := parseOptionalAmount(""); c != 0 || msg != "" {
		t.Errorf("empty tip: %d %q", c, msg)
	}
	if c, msg := parseOptionalAmount("0"); c != 0 || msg != "" {
		t.Errorf("zero tip: %d %q", c, msg)
	}
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ in, want string }{
		{"12/28", "12-28"}, {"1228", "12-28"}, {"12-2028", "12-28"}, {"11/26", "11-26"},
		{"10/26", ""}, {"13/28", ""}, {"", ""}, {"1/28", ""},
	} {
		got, msg := parseExpiry(c.in, now)
		if got != c.want || (c.want == "") == (msg == "") {
			t.Errorf("parseExpiry(%q) = %q, %q", c.in, got, msg)
		}
	}
}

// TestCardFieldsNeverPrintTheirDigits: the form's card fields hold the
// client's card types, which print masked however they are printed.
func TestCardFieldsNeverPrintTheirDigits(t *testing.T) {
	t.Parallel()
	var f CardPaymentForm
	_ = f.CardNumber.UnmarshalParam("4111 1111 1111 1111")
	_ = f.SecurityCode.UnmarshalParam("739")
	if f.CardNumber.Problem != "" || f.SecurityCode.Problem != "" {
		t.Fatalf("problems: %q %q", f.CardNumber.Problem, f.SecurityCode.Problem)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, f)
		if containsAny(out, "4111111111111111", "739") {
			t.Errorf("%s printed card data: %s", verb, out)
		}
	}
	var bad CardNumberField
	_ = bad.UnmarshalParam("4111 1111 1111 1112")
	if bad.Problem == "" || !bad.Number.IsZero() {
		t.Fatal("a number failing Luhn was accepted")
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				return true
			}
		}
	}
	return false
}

func TestSecurityCodeLengthFollowsTheBrand(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		number, code string
		ok           bool
	}{{"378282246310005", "8214", true}, {"378282246310005", "821", false}, {"4111111111111111", "8214", false}, {"4111111111111111", "821", true}} {
		var n CardNumberField
		var code SecurityCodeField
		_ = n.UnmarshalParam(c.number)
		_ = code.UnmarshalParam(c.code)
		errs := map[string]string{}
		cardFrom(n, "12/29", code, now, errs)
		if (errs["security_code"] == "") != c.ok {
			t.Errorf("%s with %s: %v", c.number[:4], c.code, errs)
		}
	}
}
