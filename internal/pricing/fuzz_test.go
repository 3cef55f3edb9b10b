package pricing

import (
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/payportal/portal/internal/validation"
)

// FuzzPricingForm validates any pricing model form: it never panics, and an input it accepts
// holds only storable text within its bounds.
func FuzzPricingForm(f *testing.F) {
	for _, seed := range []string{
		"name=Flat&description=flat%00&upstream_code=FLAT-1&device_purchased=no&fee_summary=2.9%25",
		"name=Caf%E9%FF&upstream_code=X&fee_summary=x",
		"name=Two%0Alines&description=many%0Alines%0Aok&upstream_code=A.B_C-1&device_purchased=yes&fee_summary=y&required_documents=voided_check&required_documents=nope",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		values, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		form := Form{Name: values.Get("name"), Description: values.Get("description"), Code: values.Get("upstream_code"),
			Device: values.Get("device_purchased"), FeeSummary: values.Get("fee_summary"), Documents: values["required_documents"]}
		in := form.Input().normalized()
		if len(in.Validate()) > 0 {
			return
		}
		for _, v := range []string{in.Name, in.UpstreamCode, in.FeeSummary} {
			if !validation.IsText(v) {
				t.Fatalf("accepted %q", v)
			}
		}
		if !validation.IsMultilineText(in.Description) || utf8.RuneCountInString(in.Description) > maxDescriptionLength {
			t.Fatalf("accepted description %q", in.Description)
		}
	})
}
