package payments_test

import (
	"testing"

	"github.com/payportal/portal/internal/upstream/payments"
)

// The card scheme of each range of leading digits, at both ends of every range and
// just outside them; too few digits name no scheme.
func TestBrandOfEachRange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ digits, brand string }{
		{"4111111111111111", "Visa"},
		{"4", "Visa"},
		{"3", "Card"},
		{"5011111111111111", "Card"},
		{"5111111111111111", "Mastercard"},
		{"5511111111111111", "Mastercard"},
		{"5611111111111111", "Card"},
		{"2220991111111111", "Card"},
		{"2221001111111111", "Mastercard"},
		{"2720991111111111", "Mastercard"},
		{"2721001111111111", "Card"},
		{"222", "Card"},
		{"341111111111111", "American Express"},
		{"371111111111111", "American Express"},
		{"351111111111111", "Card"},
		{"6011111111111117", "Discover"},
		{"6012111111111111", "Card"},
		{"6511111111111111", "Discover"},
		{"6431111111111111", "Card"},
		{"6441111111111111", "Discover"},
		{"6491111111111111", "Discover"},
		{"6501111111111111", "Discover"},
		{"3527111111111111", "Card"},
		{"3528111111111111", "JCB"},
		{"3589111111111111", "JCB"},
		{"3590111111111111", "Card"},
		{"36111111111111", "Diners Club"},
		{"38111111111111", "Diners Club"},
		{"30011111111111", "Diners Club"},
		{"30511111111111", "Diners Club"},
		{"30611111111111", "Card"},
		{"", "Card"},
	} {
		if got := payments.BrandOf(tt.digits); got != tt.brand {
			t.Errorf("BrandOf(%q) = %s, want %s", tt.digits, got, tt.brand)
		}
	}
}
