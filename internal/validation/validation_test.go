package validation

import (
	"errors"
	"testing"

	"github.com/go-playground/validator/v10"
)

// sample exercises every tag through a validator built by New.
type sample struct {
	Routing  string `json:"routing" validate:"omitempty,routing_number,aba_checksum"`
	Account  string `json:"account" validate:"omitempty,bank_account"`
	SSN      string `json:"ssn" validate:"omitempty,ssn_format,ssn_issued"`
	EIN      string `json:"ein" validate:"omitempty,ein_format,ein_prefix"`
	State    string `json:"state" validate:"omitempty,us_state"`
	ZIP      string `json:"zip" validate:"omitempty,us_zip"`
	Phone    string `json:"phone" validate:"omitempty,phone"`
	Website  string `json:"website" validate:"omitempty,website"`
	MCC      string `json:"mcc" validate:"omitempty,mcc"`
	Amount   string `json:"amount" validate:"omitempty,not_negative,decimal,max_2dp"`
	Percent  string `json:"percent" validate:"omitempty,not_negative,decimal,max_2dp,max_100"`
	Years    string `json:"years" validate:"omitempty,whole_number"`
	Date     string `json:"date" validate:"omitempty,iso_date"`
	Untagged string `validate:"omitempty,mcc"`
	Count    int    `json:"count" validate:"mcc"`
}

func TestNewRegistersTags(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Struct(sample{Count: 0, Untagged: ""}); err == nil {
		t.Fatal("a text rule on an int field must fail")
	}

	tests := []struct {
		name    string
		in      sample
		wantNS  string // "" means valid
		wantTag string
	}{
		{"empty is fine", sample{}, "", ""},
		{"good values", sample{
			Routing: "011401533", Account: "1234567", SSN: "234-56-6789", EIN: "12-3456789",
			State: "ca", ZIP: "94105", Phone: "(415) 555-0100", Website: "example.com",
			MCC: "5812", Amount: "1,234.50", Percent: "33.33", Years: "3", Date: "2020-01-31",
			Untagged: "5812",
		}, "", ""},
		{"routing format first", sample{Routing: "12345"}, "sample.routing", TagRoutingNumber},
		{"routing checksum", sample{Routing: "123456789"}, "sample.routing", TagABAChecksum},
		{"account", sample{Account: "12"}, "sample.account", TagBankAccount},
		{"ssn format", sample{SSN: "12345"}, "sample.ssn", TagSSNFormat},
		{"ssn issued", sample{SSN: "666-12-3456"}, "sample.ssn", TagSSNIssued},
		{"ein format", sample{EIN: "1-2345678"}, "sample.ein", TagEINFormat},
		{"ein prefix", sample{EIN: "07-1234567"}, "sample.ein", TagEINPrefix},
		{"state", sample{State: "XX"}, "sample.state", TagUSState},
		{"zip", sample{ZIP: "1234"}, "sample.zip", TagZIP},
		{"phone", sample{Phone: "555"}, "sample.phone", TagPhone},
		{"website", sample{Website: "nope"}, "sample.website", TagWebsite},
		{"mcc", sample{MCC: "123"}, "sample.mcc", TagMCC},
		{"negative amount", sample{Amount: "-1"}, "sample.amount", TagNotNegative},
		{"not an amount", sample{Amount: "12x"}, "sample.amount", TagDecimal},
		{"three places", sample{Amount: "1.234"}, "sample.amount", TagMaxTwoDecimals},
		{"over 100", sample{Percent: "100.5"}, "sample.percent", TagMaxHundred},
		{"years", sample{Years: "2.5"}, "sample.years", TagWholeNumber},
		{"date", sample{Date: "2023-02-29"}, "sample.date", TagISODate},
		{"go name without json tag", sample{Untagged: "1"}, "sample.Untagged", TagMCC},
		{"surrounding spaces are ignored", sample{ZIP: " 94105 "}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Count = 1234 // keep the deliberately wrong int rule out of the way
			err := v.Struct(tt.in)
			var verrs validator.ValidationErrors
			if !errors.As(err, &verrs) {
				t.Fatalf("want ValidationErrors, got %v", err)
			}
			var got []validator.FieldError
			for _, fe := range verrs {
				if fe.Field() != "count" {
					got = append(got, fe)
				}
			}
			if tt.wantNS == "" {
				if len(got) != 0 {
					t.Fatalf("want no errors, got %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Namespace() != tt.wantNS || got[0].Tag() != tt.wantTag {
				t.Fatalf("got %v, want one error %s on %s", got, tt.wantTag, tt.wantNS)
			}
		})
	}
}
