package accounts

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestValidRouting(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"011401533", true}, // the published test routing number
		{"021000021", true},
		{"123456789", false}, // checksum fails
		{"01140153", false},  // 8 digits
		{"0114015330", false},
		{"01140153a", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := validRouting(tt.in); got != tt.want {
			t.Errorf("validRouting(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFieldRules(t *testing.T) {
	now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		path string
		v    any
		ok   bool
	}{
		{"banking.depositAccount", "123", true},
		{"banking.depositAccount", "12345678901234567", true},
		{"banking.depositAccount", "12", false},
		{"banking.depositAccount", "123456789012345678", false},
		{"banking.depositAccount", "12-34", false},
		{"banking.depositRouting", "011401533", true},
		{"banking.depositRouting", "123456789", false},
		{"banking.accountType", "Checking", true},
		{"banking.accountType", "checking", false},
		{"business.email", "a@b.example", true},
		{"business.email", "Ada <a@b.example>", false},
		{"contact.phone", "(512) 555-0134", true},
		{"contact.phone", "+1 512 555 0134", true},
		{"contact.phone", "555-0134", false},
		{"business.address.state", "TX", true},
		{"owners[0].address.state", "Texas", false},
		{"business.address.postalCode", "78701-1234", true},
		{"business.address.postalCode", "7870", false},
		{"owners[0].ssn", "123-45-6789", true},
		{"owners[0].ssn", "12345678", false},
		{"legalEntity.tin", "12-3456789", true},
		{"owners[0].dob", "2008-03-01", true},
		{"owners[0].dob", "2008-03-03", false}, // not yet 18
		{"owners[0].dob", "03/01/1980", false},
		{"owners[1].percentOwnership", json.Number("100"), true},
		{"owners[1].percentOwnership", json.Number("100.5"), false},
		{"legalEntity.yearsInBusiness", json.Number("201"), false},
		{"business.websiteUrl", "ftp://x.example", false},
		{"business.monthlyVolume", "12500.00", true},
		{"business.monthlyVolume", "12,500", false},
		{"business.monthlyVolume", "999999999.99", true},
		{"business.monthlyVolume", "1000000000.00", false},
		{"business.highTicket", "9999999.99", true},
		{"business.highTicket", "10000000", false},
		{"legalEntity.incorporationDate", "1800-01-01", true},
		{"legalEntity.incorporationDate", "1799-12-31", false},
		{"legalEntity.yearsInBusiness", json.Number("200"), true},
		{"owners[0].dob", "1906-03-02", true},
		{"owners[0].dob", "1906-03-01", false},
	}
	for _, tt := range tests {
		r := ruleFor(tt.path)
		if r == nil {
			t.Errorf("no rule for %s", tt.path)
			continue
		}
		if msg := r(tt.v, now); (msg == "") != tt.ok {
			t.Errorf("%s = %v: message %q, want ok=%v", tt.path, tt.v, msg, tt.ok)
		}
	}
}

func TestShapeCheckNamesTheField(t *testing.T) {
	tests := []struct {
		body string
		want string // "" for accepted
	}{
		{`{"business": {"dba": "Corner"}}`, ""},
		{`{"business": null, "banking": {"depositAccount": null}}`, ""},
		{`{"business": {"dba": 12}}`, "business.dba: must be a string"},
		{`{"business": {"address": {"zip": "78701"}}}`, "business.address.zip: unknown field"},
		{`{"owners": [{"firstName": "Ada"}, {"percentOwnership": "50"}]}`, "owners[1].percentOwnership: must be a number"},
		{`{"owners": {"firstName": "Ada"}}`, "owners: must be a list"},
		{`{"legalEntity": {"yearsInBusiness": 2.5}}`, "legalEntity.yearsInBusiness: must be a whole number"},
		{`{"legalEntity": {"foreign": "no"}}`, "legalEntity.foreign: must be true or false"},
		{`{"banking": {"depositRouting": "123456789"}}`, "banking.depositRouting: is not a valid routing number: its digits fail the ABA checksum (the test routing number 011401533 passes)"},
		{`{"nickname": "x"}`, "nickname: unknown field"},
	}
	for _, tt := range tests {
		dec := json.NewDecoder(strings.NewReader(tt.body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		err := shapeChecker{now: time.Now()}.check(v, reflect.TypeFor[applicationData](), "")
		got := ""
		if err != nil {
			got = err.Message
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestCatalogRequiredFields(t *testing.T) {
	var required []string
	for _, f := range catalog() {
		if f.Required {
			required = append(required, f.Path)
		}
	}
	got := strings.Join(required, " ")
	for _, want := range []string{"business.dba", "business.address.city", "legalEntity.tin", "owners[].ssn", "banking.depositAccount", "banking.depositRouting"} {
		if !strings.Contains(got, want) {
			t.Errorf("required fields %v lack %s", required, want)
		}
	}
	for _, not := range []string{"legalEntity.address.city", "owners[].address.city", "contact.email", "business.address.line2"} {
		if strings.Contains(got, not+" ") || strings.HasSuffix(got, not) {
			t.Errorf("%s should not be required", not)
		}
	}
}

// Text is held to the bounds the portal uses (bounds.go): valid UTF-8, no control
// characters, and each field's own length.
func TestTextBounds(t *testing.T) {
	tests := []struct {
		path, v string
		ok      bool
	}{
		{"legalEntity.name", strings.Repeat("é", 200), true},
		{"legalEntity.name", strings.Repeat("é", 201), false},
		{"business.goodsAndServices", strings.Repeat("x", 500), true},
		{"business.goodsAndServices", strings.Repeat("x", 501), false},
		{"owners[3].firstName", strings.Repeat("x", 100), true},
		{"owners[3].firstName", strings.Repeat("x", 101), false},
		{"owners[].address.city", strings.Repeat("x", 61), false},
		{"owners[0].salutation", strings.Repeat("x", 255), true},
		{"contact.name", "Jane\x00Doe", false},
		{"contact.name", "Jane\r\nDoe", false},
		{"contact.name", "Jane \xff Doe", false},
		{"contact.name", "Zoë O'Brien", true},
	}
	for _, tt := range tests {
		if msg := leafType(tt.v, reflect.String, tt.path); (msg == "") != tt.ok {
			t.Errorf("%s = %.20q: message %q, want ok=%v", tt.path, tt.v, msg, tt.ok)
		}
	}
}
