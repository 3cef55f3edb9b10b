package validation

import "testing"

// ruleCase is one input for a plain rule function and the answer expected.
type ruleCase struct {
	in   string
	want bool
}

func runRule(t *testing.T, name string, rule func(string) bool, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		if got := rule(c.in); got != c.want {
			t.Errorf("%s(%q) = %v, want %v", name, c.in, got, c.want)
		}
	}
}

func TestRoutingNumber(t *testing.T) {
	runRule(t, "IsRoutingNumberFormat", IsRoutingNumberFormat, []ruleCase{
		{"011401533", true}, {"0114-0153-3", true}, {"011 401 533", true},
		{"01140153", false}, {"0114015330", false}, {"01140153a", false}, {"", false},
	})
	runRule(t, "IsABAChecksumValid", IsABAChecksumValid, []ruleCase{
		{"011401533", true},  // the processor's test routing number
		{"021000021", true},  // JPMorgan Chase, New York
		{"111000025", true},  // Bank of America, Texas
		{"011401534", false}, // last digit changed
		{"123456789", false},
		{"000000000", false}, // sums to 0 but is no bank
		{"01140153", false},
		{"", false},
	})
}

func TestBankAccountNumber(t *testing.T) {
	runRule(t, "IsBankAccountNumber", IsBankAccountNumber, []ruleCase{
		{"123", true}, {"12345678901234567", true}, {"1234-5678 90", true},
		{"12", false}, {"123456789012345678", false}, {"12a45", false}, {"", false}, {"---", false},
	})
}

func TestSSN(t *testing.T) {
	runRule(t, "IsSSNFormat", IsSSNFormat, []ruleCase{
		{"123-45-6789", true}, {"123456789", true}, {"123 45 6789", true},
		{"123-456789", false}, {"12-3456789", false}, {"12345678", false}, {"1234567890", false},
		{"123-45-678a", false}, {"", false},
	})
	runRule(t, "IsSSNIssued", IsSSNIssued, []ruleCase{
		{"234-56-6789", true}, {"899-99-9999", true}, {"665-01-0001", true}, {"078-05-1121", true},
		{"000-12-3456", false}, {"666-12-3456", false}, {"900-12-3456", false}, {"999-12-3456", false},
		{"123-00-4567", false}, {"123-45-0000", false}, {"000000000", false}, {"12345", false},
		// Published in advertising, or the example everyone types: never anyone's.
		{"078-05-1120", false}, {"078051120", false}, {"219-09-9999", false}, {"123-45-6789", false}, {"123 45 6789", false},
		{"987-65-4321", false},
	})
	runRule(t, "IsSSN", IsSSN, []ruleCase{{"234-56-6789", true}, {"666-45-6789", false}, {"123-45-6789", false}})
	runRule(t, "IsITIN", IsITIN, []ruleCase{
		{"912-50-1234", true}, {"912-65-1234", true}, {"900-70-0001", true}, {"999-88-9999", true},
		{"912-90-1234", true}, {"912-92-1234", true}, {"912-94-1234", true}, {"999-99-9999", true},
		{"912-49-1234", false}, {"912-66-1234", false}, {"912-69-1234", false}, {"912-89-1234", false},
		{"912-93-1234", false}, // an adoption number
		{"912-00-1234", false}, {"912-70-0000", false}, {"812-70-1234", false},
		{"987-65-4320", false}, {"987-65-4329", false}, // the SSA's range for advertising
		{"987-65-4330", true}, {"91270123", false}, {"", false},
	})
	runRule(t, "IsSSNOrITIN", IsSSNOrITIN, []ruleCase{
		{"234-56-6789", true}, {"912-70-1234", true}, {"123-45-6789", false}, {"912-10-1234", false},
	})
}

func TestEIN(t *testing.T) {
	runRule(t, "IsEINFormat", IsEINFormat, []ruleCase{
		{"12-3456789", true}, {"123456789", true},
		{"123-45-6789", false}, {"12-345678", false}, {"12 3456789", false}, {"", false},
	})
	runRule(t, "IsEINPrefixIssued", IsEINPrefixIssued, []ruleCase{
		{"12-3456789", true}, {"01-0000001", true}, {"99-9999999", true}, {"95-1234567", true},
		{"00-0000000", false}, {"000000000", false}, {"07-1234567", false}, {"08-1234567", false},
		{"09-1234567", false}, {"17-1234567", false}, {"18-1234567", false}, {"19-1234567", false},
		{"28-1234567", false}, {"29-1234567", false}, {"49-1234567", false}, {"69-1234567", false},
		{"70-1234567", false}, {"78-1234567", false}, {"79-1234567", false}, {"89-1234567", false},
		{"96-1234567", false}, {"97-1234567", false}, {"bad", false},
	})
	runRule(t, "IsEIN", IsEIN, []ruleCase{{"12-3456789", true}, {"07-1234567", false}})
}

func TestUSStateAndZIP(t *testing.T) {
	runRule(t, "IsUSState", IsUSState, []ruleCase{
		{"CA", true}, {"ny", true}, {"DC", true}, {"PR", true}, {"GU", true}, {"VI", true},
		{"AS", true}, {"MP", true},
		{"XX", false}, {"AA", false}, {"California", false}, {"C", false}, {"", false},
	})
	if got := len(USStateCodes()); got != 56 {
		t.Errorf("len(USStateCodes()) = %d, want 56 (50 states, DC, 5 territories)", got)
	}
	runRule(t, "IsZIP", IsZIP, []ruleCase{
		{"12345", true}, {"12345-6789", true},
		{"1234", false}, {"123456", false}, {"123456789", false}, {"12345-678", false},
		{"12345 6789", false}, {"abcde", false}, {"", false},
	})
}

func TestPhone(t *testing.T) {
	runRule(t, "IsPhone", IsPhone, []ruleCase{
		{"2125550100", true}, {"212-555-0100", true}, {"212.555.0100", true},
		{"212 555 0100", true}, {"(212) 555-0100", true}, {"(212)555-0100", true},
		{"1-212-555-0100", true}, {"+1 212 555 0100", true}, {"+1 (212) 555-0100", true},
		{"+12125550100", true}, {"+44 20 7946 0958", true}, {"+4930123456", true},
		{"212555010", false},    // 9 digits
		{"21255501000", false},  // 11 digits not starting with 1
		{"112-555-0100", false}, // area code starts with 1
		{"212-155-0100", false}, // exchange starts with 1
		{"+1 112 555 0100", false},
		{"+0 20 7946 0958", false},
		{"+1234567", false}, // too short for E.164
		{"+1234567890123456", false},
		{"212-555-0100 x12", false},
		{"(212 555-0100", false},
		{"212) 555-0100", false},
		{"2125550100()", false},
		{"+", false}, {"", false},
	})
}

func TestWebsite(t *testing.T) {
	runRule(t, "IsWebsite", IsWebsite, []ruleCase{
		{"https://example.com", true}, {"http://example.com/shop?x=1", true},
		{"example.com", true}, {"www.example.co.uk/path", true}, {"shop.example.com:8443", true},
		{"ftp://example.com", false}, {"example", false}, {"https://localhost", false},
		{"https://user:pw@example.com", false}, {"mailto:a@example.com", false},
		{"javascript:alert(1)", false}, {"exa mple.com", false}, {"https://example.c0m", false},
		{"https://-bad.com", false}, {"", false},
		{"https://192.168.1.10", false}, {"example.c", false}, {"HTTPS://Shop.Example.COM", true},
	})
}

func TestNumbers(t *testing.T) {
	runRule(t, "IsDecimal", IsDecimal, []ruleCase{
		{"0", true}, {"1234", true}, {"1234.5", true}, {"1,234.50", true}, {"1,234,567", true},
		{".5", true}, {"-12", true}, {"0.125", true},
		{"1,23", false}, {"12,34.5", false}, {"1.", false}, {"1.2.3", false}, {"$12", false},
		{"+12", false}, {"1e3", false}, {"", false}, {"-", false},
	})
	runRule(t, "IsNotNegative", IsNotNegative, []ruleCase{
		{"0", true}, {"12.5", true}, {"abc", true}, {"-abc", true},
		{"-1", false}, {"-0.01", false},
	})
	runRule(t, "HasAtMostTwoDecimals", HasAtMostTwoDecimals, []ruleCase{
		{"12", true}, {"12.5", true}, {"12.50", true}, {"1,234.56", true},
		{"12.345", false}, {"abc", false},
	})
	runRule(t, "IsAtMostHundred", IsAtMostHundred, []ruleCase{
		{"0", true}, {"99.99", true}, {"100", true}, {"100.00", true}, {"0100", true}, {"-5", true},
		{"100.01", false}, {"101", false}, {"1,000", false}, {"abc", false},
	})
	runRule(t, "IsWholeNumber", IsWholeNumber, []ruleCase{
		{"0", true}, {"12", true}, {"1.5", false}, {"-1", false}, {"1,000", false}, {"", false},
	})
	runRule(t, "IsMCC", IsMCC, []ruleCase{
		{"5812", true}, {"0742", true}, {"581", false}, {"58120", false}, {"58a2", false},
	})
}

func TestHundredths(t *testing.T) {
	tests := []struct {
		in     string
		want   int64
		wantOK bool
	}{
		{"0", 0, true},
		{"12", 1200, true},
		{"12.5", 1250, true},
		{"1,234.56", 123456, true},
		{".05", 5, true},
		{"33.33", 3333, true},
		{"999999999999999.99", 99999999999999999, true},
		{"1000000000000000", 0, false}, // 16 digits
		{"12.345", 0, false},
		{"-1", 0, false},
		{"abc", 0, false},
	}
	for _, tt := range tests {
		got, ok := Hundredths(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Hundredths(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestDates(t *testing.T) {
	runRule(t, "IsISODate", IsISODate, []ruleCase{
		{"2024-02-29", true}, {"1999-12-31", true},
		{"2023-02-29", false}, {"2024-13-01", false}, {"2024-1-01", false}, {"01/02/2024", false},
		{"2024-02-29T00:00:00Z", false}, {"", false},
	})
}

func TestDigits(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"123-45 6789", "123456789", true},
		{" 12 ", "12", true},
		{"12a", "", false},
		{"- -", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := Digits(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Digits(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckText(t *testing.T) {
	tests := []struct {
		in        string
		multiline bool
		want      TextProblem
	}{
		{"Blue Fern Café", false, TextOK},
		{"", false, TextOK},
		{"a\x00b", false, TextControl},
		{"a\x00b", true, TextControl},
		{"a\x1bb", true, TextControl},
		{"a\x7fb", false, TextControl},
		{"a\u0085b", false, TextControl},
		{"\xff\xfe", false, TextNotUTF8},
		{"ok\xc3", false, TextNotUTF8},
		{"a\nb", false, TextLineBreak},
		{"a\r\nb", false, TextLineBreak},
		{"a\tb", false, TextLineBreak},
		{"a\u2028b", false, TextLineBreak},
		{"a\r\nb\tc", true, TextOK},
		{"\uFFFD is typed", false, TextOK},
	}
	for _, tt := range tests {
		if got := CheckText(tt.in, tt.multiline); got != tt.want {
			t.Errorf("CheckText(%q, %v) = %v, want %v", tt.in, tt.multiline, got, tt.want)
		}
	}
	if !TooLong("ééé", 2) || TooLong("ééé", 3) || TooLong("abc", 3) {
		t.Error("TooLong counts characters, not bytes")
	}
}
